import type { ToolDefinition } from '../ports/model.js';

/**
 * The agent's three tools. One definition serves the LLM agent (sent to the model), the built-in agent,
 * the rollout engine (which executes them) and the exporters (which write them into `tools`).
 */
export const agentTools: ToolDefinition[] = [
  {
    name: 'run_command',
    description: 'Run a shell command in the task sandbox (working directory = the workspace). Returns exit code, stdout and stderr.',
    parameters: {
      type: 'object',
      properties: { command: { type: 'string', description: 'A POSIX shell command line.' } },
      required: ['command'],
      additionalProperties: false,
    },
  },
  {
    name: 'message_user',
    description: 'Send a message to the user (ask a question, confirm, report). Returns the user\'s reply.',
    parameters: {
      type: 'object',
      properties: { text: { type: 'string', description: 'What to say to the user.' } },
      required: ['text'],
      additionalProperties: false,
    },
  },
  {
    name: 'submit',
    description: 'Declare the task done. The work is then checked; no further commands run.',
    parameters: {
      type: 'object',
      properties: { summary: { type: 'string', description: 'One or two sentences on what was done.' } },
      required: ['summary'],
      additionalProperties: false,
    },
  },
];
