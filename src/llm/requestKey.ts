import { createHash } from 'node:crypto';
import type { ChatMessage, ChatRequest } from '../core/ports/model.js';
import { canonicalJsonOf } from '../core/roles/llm/canonicalJson.js';

/**
 * What determines a model's answer, and nothing else: the signal, the stream flag and the key never enter it, so
 * a streamed run replays a non-streamed recording and a key change does not invalidate a cache.
 */
export interface NormalisedRequest {
  /**
   * The endpoint's servers, sorted: the same model name on another server is another model (a fleet behind one
   * endpoint shares its recordings, whichever of its URLs answered).
   */
  baseUrls: string[];
  model: string;
  messages: ChatMessage[];
  tools: ChatRequest['tools'] | null;
  toolChoice: ChatRequest['toolChoice'] | null;
  responseSchema: ChatRequest['responseSchema'] | null;
  temperature: number | null;
  maxTokens: number | null;
  seed: number | null;
}

export function normaliseRequest(model: string, request: ChatRequest, baseUrls: readonly string[]): NormalisedRequest {
  return {
    baseUrls: [...new Set(baseUrls.map((u) => u.replace(/\/+$/, '')))].sort(),
    model,
    messages: request.messages.map(normaliseMessage),
    tools: request.tools && request.tools.length > 0 ? request.tools : null,
    toolChoice: request.toolChoice ?? null,
    responseSchema: request.responseSchema ?? null,
    temperature: request.temperature ?? null,
    maxTokens: request.maxTokens ?? null,
    seed: request.seed ?? null,
  };
}

function normaliseMessage(m: ChatMessage): ChatMessage {
  if (m.role === 'assistant') {
    return m.toolCalls && m.toolCalls.length > 0
      ? { role: 'assistant', content: m.content, toolCalls: m.toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })) }
      : { role: 'assistant', content: m.content };
  }
  return m;
}

/** Canonical JSON (keys sorted at every level), so equal requests hash equally whatever their key order. */
export const canonicalJson = canonicalJsonOf;

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function requestCacheKey(normalised: NormalisedRequest): string {
  return sha256(canonicalJson(normalised));
}

/**
 * The key a replay falls back on when the exact request was not recorded: the same call at the same place in the
 * same episode. User and tool message contents are left out, because sandbox observations (`ls -l` times, `date`,
 * durations) differ between a recording and its replay; what stays is the model, the sampling parameters, the
 * system prompt and the model's own previous answers. Only requests with a seed get one: the seed (drawn from the
 * rollout's random stream) is what tells two episodes apart, so a seedless request is never matched by position.
 */
export function positionalKey(normalised: NormalisedRequest): string | undefined {
  if (normalised.seed === null) return undefined;
  const skeleton = {
    ...normalised,
    messages: normalised.messages.map((m) => (m.role === 'user' || m.role === 'tool' ? { role: m.role } : m)),
  };
  return sha256(`position:${canonicalJson(skeleton)}`);
}

/** How an error names a request without printing it: the model and a digest of the first message. */
export function describeRequest(normalised: NormalisedRequest): string {
  const first = normalised.messages[0];
  const digest = first ? sha256(canonicalJson(first)).slice(0, 12) : 'none';
  return `model "${normalised.model}", ${normalised.messages.length} messages, first message (${first?.role ?? 'none'}) sha256:${digest}`;
}
