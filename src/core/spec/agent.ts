import { z } from 'zod';
import { idSchema, lineageSchema, specApiVersion } from './common.js';

export const commandIdioms = ['grep', 'awk', 'sed', 'shell'] as const;

/** Strategy genes of the built-in heuristic agent; selection evolves them between generations. */
export const agentGenesSchema = z
  .strictObject({
    askFirst: z.number().min(0).max(1).default(0.5).describe('Tendency to ask the user before acting (0..1).'),
    questionBudget: z.number().int().min(0).max(20).default(3).describe('Questions the agent is willing to ask.'),
    explore: z.number().min(0).max(1).default(0.5).describe('How much it inspects the workspace before acting (0..1).'),
    verify: z.number().min(0).max(1).default(0.5).describe('Chance it checks its result before submitting (0..1).'),
    idiom: z.enum(commandIdioms).default('shell').describe('Preferred command idiom.'),
    persistence: z.number().int().min(0).max(10).default(2).describe('Retries after a failed command.'),
  })
  .describe('Strategy genes of the built-in heuristic agent.');

export const agentConfigSchema = z
  .strictObject({
    apiVersion: z.literal(specApiVersion).describe('Spec format version; always "coevolve/v1".'),
    kind: z.literal('Agent').describe('Always "Agent".'),
    id: idSchema,
    systemPrompt: z.string().max(65536).optional().describe('System prompt of an LLM agent; the default prompt is used when absent.'),
    playbook: z.array(z.string().max(2048)).max(100).default([]).describe('Lessons learned by reflective updates, appended to the system prompt.'),
    genes: agentGenesSchema.default(agentGenesSchema.parse({})),
    lineage: lineageSchema.default({ parent: null, operator: null, generation: 0 }),
  })
  .describe('The agent under evolution: prompt and playbook (LLM) or strategy genes (built-in).');

export type AgentConfig = z.infer<typeof agentConfigSchema>;
export type AgentGenes = z.infer<typeof agentGenesSchema>;
