import type { AtifStep, RolloutRecord } from '../core/rollout/trajectory.js';
import type { EnvironmentSpec } from '../core/spec/environment.js';
import { toolsForRollout, type ChatTool } from './agentTools.js';
import type { RolloutMetadata } from './rolloutMetadata.js';

export interface ChatToolCall {
  id: string;
  type: 'function';
  /** `arguments` is a JSON string, as the OpenAI format requires (not an object). */
  function: { name: string; arguments: string };
}

export type ChatJsonlMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  /** `reasoning_content`: a reasoning model's thinking before the turn, where it was recorded. */
  | { role: 'assistant'; content: string | null; reasoning_content?: string; tool_calls?: ChatToolCall[]; weight?: 0 | 1 }
  | { role: 'tool'; tool_call_id: string; content: string };

/** One line of data/{split}.jsonl. */
export interface ChatJsonlRecord {
  messages: ChatJsonlMessage[];
  tools: ChatTool[];
  metadata: RolloutMetadata;
}

export interface ChatJsonlOptions {
  /** Add `weight` to assistant messages: 0 where the turn was malformed (a tool-call parse error), else 1. */
  weights: boolean;
}

/** Says what a tool call without a recorded result got, so every call is still answered as the format requires. */
const missingResult = '(no result was recorded for this call)';

/**
 * A rollout as OpenAI chat messages, as the agent saw it: system = the instruction, the simulated user's turns as
 * `user`, agent turns as `assistant` with `tool_calls`, one `tool` message per call with its result (for message_user,
 * the user's reply), and a hint play's hint as a later `system` message.
 */
export function toChatJsonl(r: RolloutRecord, env: EnvironmentSpec | undefined, metadata: RolloutMetadata, options: ChatJsonlOptions): ChatJsonlRecord {
  const messages: ChatJsonlMessage[] = [];
  if (r.steps[0]?.source !== 'system' && env) messages.push({ role: 'system', content: env.instruction });
  for (const step of r.steps) pushStep(messages, step, options);
  return { messages, tools: toolsForRollout(r), metadata };
}

function pushStep(messages: ChatJsonlMessage[], step: AtifStep, options: ChatJsonlOptions): void {
  if (step.source === 'system') {
    messages.push({ role: 'system', content: step.message });
    return;
  }
  if (step.source === 'user') {
    // A reply to message_user already reached the agent as that call's tool result; repeating it would show the
    // model a user turn it never saw.
    if (step.extra?.replyTo) return;
    messages.push({ role: 'user', content: step.message });
    return;
  }
  const calls = step.tool_calls ?? [];
  const assistant: Extract<ChatJsonlMessage, { role: 'assistant' }> = {
    role: 'assistant',
    // The format wants content or tool_calls; an empty turn keeps "" so it is never both absent.
    content: step.message.length > 0 ? step.message : calls.length > 0 ? null : '',
  };
  if (step.reasoning_content) assistant.reasoning_content = step.reasoning_content;
  if (calls.length > 0) {
    assistant.tool_calls = calls.map((c) => ({ id: c.tool_call_id, type: 'function', function: { name: c.function_name, arguments: JSON.stringify(c.arguments ?? {}) } }));
  }
  if (options.weights) assistant.weight = step.extra?.error ? 0 : 1;
  messages.push(assistant);
  const results = step.observation?.results ?? [];
  for (const c of calls) {
    const res = results.find((o) => o.source_call_id === c.tool_call_id);
    messages.push({ role: 'tool', tool_call_id: c.tool_call_id, content: res ? res.content : missingResult });
  }
}
