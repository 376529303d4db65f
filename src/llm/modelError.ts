export type ModelErrorKind =
  | 'timeout'
  | 'rate_limited'
  | 'server_error'
  | 'connection'
  | 'http_error'
  | 'invalid_response'
  | 'replay_miss'
  | 'missing_key';

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
