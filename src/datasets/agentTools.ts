import { agentTools } from '../core/roles/agentTools.js';
import type { RolloutRecord } from '../core/rollout/trajectory.js';

/** A tool as the OpenAI chat format declares it (`tools` array). */
export interface ChatTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** The agent's tools exactly as the agent saw them (one definition in core), in the chat format. */
export const agentChatTools: readonly ChatTool[] = agentTools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));

const known = new Set(agentChatTools.map((t) => t.function.name));

/**
 * The declared tools plus any other name the rollout called (a malformed call the engine answered with an error):
 * every `tool_calls` name must be declared for trainers that check, so the stray one gets a loose schema.
 */
export function toolsForRollout(rollout: RolloutRecord): ChatTool[] {
  const extra = new Set<string>();
  for (const step of rollout.steps) for (const call of step.tool_calls ?? []) if (!known.has(call.function_name)) extra.add(call.function_name);
  if (extra.size === 0) return agentChatTools as ChatTool[];
  return [
    ...agentChatTools,
    ...[...extra].sort().map((name): ChatTool => ({
      type: 'function',
      function: { name, description: `Tool "${name}" as called in the recorded rollout (not one of the agent's tools).`, parameters: { type: 'object', properties: {}, additionalProperties: true } },
    })),
  ];
}
