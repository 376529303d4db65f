export type ModelErrorKind =
  | 'timeout'
  | 'rate_limited'
  | 'server_error'
  | 'connection'
  | 'http_error'
  | 'invalid_response'
  | 'replay_miss'
  | 'missing_key'
  /** HTTP 400 saying the prompt does not fit the model's context window (vLLM, SGLang, llama.cpp wordings). */
  | 'context_overflow'
  /** HTTP 400 refusing the tools API (vLLM without a tool parser, an Ollama model without tool support). */
  | 'tools_unsupported';

/** What servers say when a prompt does not fit (vLLM, SGLang, llama.cpp, OpenAI). */
const contextOverflow = /maximum context length|context length|context window|context size|longer than the model|too many tokens|prompt is too long|exceed_context_size/i;
const toolsRefused = /tool.?choice|tool-call-parser|does not support tools|tools? (?:is|are) not supported/i;

/** The context length a refusal names: vLLM "maximum context length is N tokens", SGLang "context length (N tokens)". */
export function windowNamedIn(detail: string): number | undefined {
  const m = /maximum context length is (\d+)/i.exec(detail) ?? /context length \((\d+) tokens\)/i.exec(detail) ?? /"?n_ctx"?\s*[:=]\s*(\d+)/i.exec(detail);
  return m ? Number(m[1]) : undefined;
}

/**
 * The prompt's token count a refusal states, when it does: vLLM "(N in the messages, M in the completion)", older
 * vLLM "you requested N tokens in the messages", newer vLLM "your request has N input tokens", SGLang "The input
 * (N tokens) is longer than", llama.cpp's `n_prompt_tokens`. The server's own count sizes the next prompt exactly.
 */
export function promptTokensNamedIn(detail: string): number | undefined {
  const m = /(\d+)(?: tokens)? in the messages/i.exec(detail) ?? /request has (\d+) input tokens/i.exec(detail) ?? /input \((\d+) tokens\)/i.exec(detail) ?? /"?n_prompt_tokens"?\s*[:=]\s*(\d+)/i.exec(detail);
  const n = m ? Number(m[1]) : undefined;
  return n !== undefined && n > 0 ? n : undefined;
}

/** The kind of a 400: a context overflow, a refusal of tools (only when tools were sent), or a plain client error. */
export function kindOf400(detail: string, sentTools: boolean): ModelErrorKind {
  if (contextOverflow.test(detail)) return 'context_overflow';
  if (sentTools && toolsRefused.test(detail)) return 'tools_unsupported';
  return 'http_error';
}

/**
 * A model call that failed for good (after retries). The message says what failed, where (endpoint, URL, model)
 * and what to do; it has been scrubbed of keys, and the SDK error is deliberately not kept as `cause`.
 */
export class ModelError extends Error {
  constructor(
    readonly kind: ModelErrorKind,
    message: string,
    readonly attempts = 0,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'ModelError';
  }

  /** Whether another attempt may succeed. */
  get retryable(): boolean {
    return this.kind === 'timeout' || this.kind === 'rate_limited' || this.kind === 'server_error' || this.kind === 'connection';
  }
}
