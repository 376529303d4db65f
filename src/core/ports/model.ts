import type { Cancellation } from './cancellation.js';

/** Chat messages in the OpenAI Chat Completions shape, which every supported server speaks. */
export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; content: string };

export interface ToolCall {
  id: string;
  name: string;
  /** Raw JSON text as the model produced it; parse tolerantly, it may be malformed. */
  arguments: string;
}

export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema of the arguments. */
  parameters: Record<string, unknown>;
}

export interface ChatRequest {
  messages: ChatMessage[];
  tools?: ToolDefinition[];
  toolChoice?: 'auto' | 'none' | 'required' | { name: string };
  /** Ask for JSON output matching this schema (response_format json_schema). */
  responseSchema?: { name: string; schema: Record<string, unknown> };
  temperature?: number;
  maxTokens?: number;
  seed?: number;
  /**
   * Stream the completion (server-sent events) so a long generation stops as soon as `signal` aborts. The result is
   * the same as without streaming; usage comes from the final chunk.
   */
  stream?: boolean;
  signal?: Cancellation;
}

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  costUsd: number;
}

export interface ChatResponse {
  message: { content: string | null; toolCalls: ToolCall[] };
  finishReason: string;
  usage: Usage;
  model: string;
  /** True when served from the request cache. */
  cached: boolean;
  latencyMs: number;
}

/** One model as a role sees it: a configured endpoint + model name + sampling parameters. */
export interface ChatModel {
  readonly label: string;
  complete(request: ChatRequest): Promise<ChatResponse>;
  /** Running totals of this model's calls, for cost reports and budget checks (LLM adapters provide it). */
  stats?(): ModelStats;
}

export interface ModelStats {
  /** Calls to `complete`, answered or not. */
  calls: number;
  /** HTTP requests actually sent (attempts, including retries); 0 for a fully replayed run. */
  networkRequests: number;
  cacheHits: number;
  retries: number;
  failures: number;
  /** Usage of answered calls; cache hits carry the usage they were recorded with. */
  usage: Usage;
  /** Cost of network calls only: what was really paid in this process. */
  spentUsd: number;
}

export const zeroUsage = (): Usage => ({ promptTokens: 0, completionTokens: 0, cachedTokens: 0, costUsd: 0 });

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    cachedTokens: a.cachedTokens + b.cachedTokens,
    costUsd: a.costUsd + b.costUsd,
  };
}
