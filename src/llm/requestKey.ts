import { createHash } from 'node:crypto';
import { canonicalJsonOf } from '../core/roles/llm/canonicalJson.js';

/**
 * What determines a model's answer, and nothing else: the endpoint's servers and the request body exactly as sent
 * (model, messages with any reasoning sent back, tools, sampling parameters, extraBody, logprob flags), without the
 * stream flags. The signal and the key never enter it, so a streamed run replays a non-streamed recording and a
 * key change does not invalidate a cache.
 */
export interface NormalisedRequest {
  /** Bumped when what enters the key changes, so old recordings miss instead of matching wrongly. */
  keyVersion: 2;
  /**
   * The endpoint's servers, sorted: the same model name on another server is another model (a fleet behind one
   * endpoint shares its recordings, whichever of its URLs answered).
   */
  baseUrls: string[];
  body: Record<string, unknown>;
}

export function normaliseRequest(body: object, baseUrls: readonly string[]): NormalisedRequest {
  const { stream: _stream, stream_options: _options, ...rest } = body as Record<string, unknown>;
  return {
    keyVersion: 2,
    baseUrls: [...new Set(baseUrls.map((u) => u.replace(/\/+$/, '')))].sort(),
    // A JSON round trip drops undefined fields, so the stored request is what was hashed.
    body: JSON.parse(JSON.stringify(rest)) as Record<string, unknown>,
  };
}

/** Canonical JSON (keys sorted at every level), so equal requests hash equally whatever their key order. */
export const canonicalJson = canonicalJsonOf;

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function requestCacheKey(normalised: NormalisedRequest): string {
  return sha256(canonicalJson(normalised));
}

type WireMessage = { role?: unknown; [key: string]: unknown };

function messagesOf(normalised: NormalisedRequest): WireMessage[] {
  const m = normalised.body.messages;
  return Array.isArray(m) ? (m as WireMessage[]) : [];
}

/**
 * The key a replay falls back on when the exact request was not recorded: the same call at the same place in the
 * same episode. User and tool message contents are left out, because sandbox observations (`ls -l` times, `date`,
 * durations) differ between a recording and its replay; what stays is the model, the sampling parameters, the
 * system prompt and the model's own previous answers. Only requests with a seed get one: the seed (drawn from the
 * rollout's random stream) is what tells two episodes apart, so a seedless request is never matched by position.
 */
export function positionalKey(normalised: NormalisedRequest): string | undefined {
  if (normalised.body.seed === undefined || normalised.body.seed === null) return undefined;
  const skeleton = {
    ...normalised,
    body: { ...normalised.body, messages: messagesOf(normalised).map((m) => (m.role === 'user' || m.role === 'tool' ? { role: m.role } : m)) },
  };
  return sha256(`position:${canonicalJson(skeleton)}`);
}

/** How an error names a request without printing it: the model and a digest of the first message. */
export function describeRequest(normalised: NormalisedRequest): string {
  const messages = messagesOf(normalised);
  const first = messages[0];
  const digest = first ? sha256(canonicalJson(first)).slice(0, 12) : 'none';
  return `model "${String(normalised.body.model)}", ${messages.length} messages, first message (${String(first?.role ?? 'none')}) sha256:${digest}`;
}
