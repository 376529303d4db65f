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
