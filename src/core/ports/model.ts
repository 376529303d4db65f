import type { Cancellation } from './cancellation.js';

/** Chat messages in the OpenAI Chat Completions shape, which every supported server speaks. */
export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  /**
   * `reasoning` is what a reasoning model thought before answering (vLLM `reasoning`, DeepSeek/SGLang/llama.cpp
   * `reasoning_content`, Ollama `reasoning`, or an inline `<think>` block). It is kept with the turn; whether it is
   * sent back to the model is the adapter's per-role choice.
   */
  | { role: 'assistant'; content: string | null; toolCalls?: ToolCall[]; reasoning?: string }
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
  topP?: number;
  stop?: string[];
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

/**
 * Token-level data of one completion, where the server sends it (vLLM with `return_token_ids` and logprobs; any
 * server with OpenAI logprobs). Arrays are aligned: `completionLogprobs[i]` is the log-probability of the i-th
 * completion token.
 */
export interface TokenData {
  promptTokenIds?: number[];
  completionTokenIds?: number[];
  completionLogprobs?: number[];
}

export interface ChatResponse {
  message: { content: string | null; toolCalls: ToolCall[]; reasoning?: string };
  finishReason: string;
  usage: Usage;
  model: string;
  /** True when served from the request cache. */
  cached: boolean;
  latencyMs: number;
  tokens?: TokenData;
}

/**
 * What a rollout records of the model behind a role, so it can be reproduced: where it ran and how it was asked.
 * Never a key.
 */
export interface ModelSettings {
  endpoint: string;
  baseUrls: string[];
  model: string;
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  stop?: string[];
  extraBody?: Record<string, unknown>;
  sendReasoning: 'none' | 'last' | 'all';
  toolCallFormat: string;
  tokenData: string;
  contextWindow?: number;
}

/** One model as a role sees it: a configured endpoint + model name + sampling parameters. */
export interface ChatModel {
  readonly label: string;
  complete(request: ChatRequest): Promise<ChatResponse>;
  /** Running totals of this model's calls, for cost reports and budget checks (LLM adapters provide it). */
  stats?(): ModelStats;
  /** How the model is configured (LLM adapters provide it); recorded in rollouts. */
  readonly settings?: ModelSettings;
  /**
   * The model's context length in tokens: from the config, else what the server reports (`/v1/models`), else
   * undefined (unknown: no fitting is done).
   */
  contextWindow?(signal?: Cancellation): Promise<number | undefined>;
}

/**
 * Thrown when a conversation cannot fit the model's context window even after the history policy; the rollout ends
 * `truncated: context` instead of an error.
 */
export class ContextWindowExceeded extends Error {
  constructor(
    message: string,
    /** The window the server named in its refusal, when it did ("maximum context length is 4096 tokens"). */
    readonly contextWindow?: number,
    /** The prompt's size in tokens as the server counted it, when its refusal says ("4200 in the messages"). */
    readonly promptTokens?: number,
  ) {
    super(message);
    this.name = 'ContextWindowExceeded';
  }
}

export function isContextWindowExceeded(err: unknown): err is ContextWindowExceeded {
  return err instanceof Error && err.name === 'ContextWindowExceeded';
}

/**
 * Thrown when a server refuses the tools API (vLLM without a tool parser refuses `tool_choice: "auto"`, Ollama
 * refuses tools for a model whose template has none); the agent then describes its tools in the prompt instead.
 */
export class ToolsUnsupported extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolsUnsupported';
  }
}

export function isToolsUnsupported(err: unknown): err is ToolsUnsupported {
  return err instanceof Error && err.name === 'ToolsUnsupported';
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
