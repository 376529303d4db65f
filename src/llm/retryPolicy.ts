export interface BackoffPolicy {
  /** Delay before the first retry, in ms; doubles per attempt. */
  baseDelayMs: number;
  /** Upper bound of the exponential part. */
  maxDelayMs: number;
  /** Upper bound of a server-requested Retry-After we are willing to honour. */
  maxRetryAfterMs: number;
}

export const defaultBackoff: BackoffPolicy = { baseDelayMs: 500, maxDelayMs: 30_000, maxRetryAfterMs: 120_000 };

/**
 * Delay before retry number `attempt` (1-based): "equal jitter" exponential backoff, so concurrent clients that
 * failed together do not retry together, and never less than what the server asked for in Retry-After.
 */
export function retryDelayMs(attempt: number, policy: BackoffPolicy, random: () => number, retryAfterMs?: number): number {
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  const jittered = exp / 2 + random() * (exp / 2);
  if (retryAfterMs === undefined) return Math.round(jittered);
  return Math.round(Math.max(jittered, Math.min(retryAfterMs, policy.maxRetryAfterMs)));
}

/**
 * Reads Retry-After (seconds or an HTTP date) and the non-standard retry-after-ms some servers send.
 * Returns undefined when absent or unreadable.
 */
export function parseRetryAfter(headers: { get(name: string): string | null } | undefined, now: number = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** HTTP statuses worth another attempt: rate limits, timeouts at a proxy, server faults. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}
