import type { AgentTask } from '../ports.js';
import { roleMarker } from './roleMarker.js';

/** The default instructions of the LLM agent; an agent config's `systemPrompt` replaces them. */
export const defaultAgentInstructions = `You are a careful terminal agent helping a user with a task in a sandboxed shell.

You act only through tools:
- run_command {"command": "..."} runs a POSIX shell command in the workspace and returns its exit code and output.
- message_user {"text": "..."} sends a message to the user and returns their reply.
- submit {"summary": "..."} declares the task done; after it nothing more runs and the work is checked.

How to work:
- The user knows things you cannot find in the workspace. When the request leaves something open that matters
  (a threshold, a name, a format, which of several options), ask the user before acting on a guess.
- Look before you change: inspect the files the task is about. Never delete or overwrite the user's input files.
- Check your result before you submit. Submit once, when the work is done.
- Keep messages to the user short and concrete.`;

export function agentSystemPrompt(task: AgentTask, config: { systemPrompt?: string | undefined; playbook: readonly string[] }): string {
  const parts = [roleMarker('agent'), config.systemPrompt?.trim() || defaultAgentInstructions];
  parts.push(`Working directory: ${task.workdir}. Task family: ${task.family}.`);
  if (config.playbook.length > 0) {
    parts.push(`Lessons from earlier episodes:\n${config.playbook.map((l) => `- ${l}`).join('\n')}`);
  }
  return parts.join('\n\n');
}

/** The first user-side message: the task as the agent is told it, the user's opening words and, in hint plays, the hint. */
export function agentOpeningMessage(task: AgentTask, userMessage: string | undefined): string {
  const parts = [`Task:\n${task.instruction}`];
  if (userMessage) parts.push(`The user says:\n${userMessage}`);
  // SPADE injects the privileged hint after the observation in this shape.
  if (task.hint) parts.push(`HINT: ${task.hint}`);
  return parts.join('\n\n');
}
