import { addUsage, ContextWindowExceeded, ToolsUnsupported } from '../core/ports/model.js';
import type { ChatResponse } from '../core/ports/model.js';
import type { ChatModelState } from './chatModelState.js';
import { ModelError, promptTokensNamedIn } from './modelError.js';
import type { CacheEntry, CachedRefusal, RequestCache } from './requestCache.js';
import { describeRequest, positionalKey } from './requestKey.js';
import type { NormalisedRequest } from './requestKey.js';

/** A call's request in the request cache: its normalised body and the key it is stored under. */
export interface RecordedRequest {
  readonly normalised: NormalisedRequest;
  readonly key: string;
}

/** A recorded answer or refusal served from the cache, counted as a hit; undefined when there is none. */
export async function replayRecorded(state: ChatModelState, cache: RequestCache, { normalised, key }: RecordedRequest, started: number): Promise<ChatResponse | undefined> {
  const { stats } = state;
  const recorded = await lookup(state, cache, normalised, key);
  if (recorded?.refusal) {
    stats.cacheHits++;
    throw refusalError(recorded.refusal);
  }
  if (recorded?.response) {
    stats.cacheHits++;
    stats.usage = addUsage(stats.usage, recorded.response.usage);
    return { ...recorded.response, cached: true, latencyMs: performance.now() - started };
  }
  return undefined;
}

/** The recording of a request: by its exact key, else (replay only) by its place in the episode; a replay miss throws. */
async function lookup(state: ChatModelState, c: RequestCache, normalised: NormalisedRequest, key: string): Promise<CacheEntry | undefined> {
  const { log, stats } = state;
  const hit = await c.get(key);
  if (hit) return hit;
  if (c.mode !== 'replay') return undefined;
  const position = positionalKey(normalised);
  const byPosition = position ? await c.getByPosition(position) : undefined;
  if (byPosition) {
    log(`replay: served ${describeRequest(normalised)} by position: what the model was shown differs from the recording (sandbox output is rarely byte-identical)`);
    return byPosition;
  }
  stats.failures++;
  throw new ModelError(
    'replay_miss',
    `request cache miss in replay mode: ${describeRequest(normalised)} (cache key ${key}, cache ${c.dir}). ` +
      'A replay-only run makes no network calls; record this request first with cache mode "rw", or replay with the exact config and seed of the recorded run.',
  );
}

/** Records a refusal the roles act on, so a replay takes the same path; a failed write is not worth a failure. */
export function recordRefusal(cache: RequestCache, { normalised, key }: RecordedRequest, refusal: CachedRefusal): Promise<void> {
  return cache.put({ formatVersion: 1, key, recordedAt: new Date().toISOString(), request: normalised, refusal }, positionalKey(normalised)).catch(() => undefined);
}

export function recordResponse(state: ChatModelState, cache: RequestCache, { normalised, key }: RecordedRequest, response: ChatResponse): Promise<void> {
  const { log } = state;
  // A paid answer is worth more than its recording: a failed write is logged, and a later replay reports the miss.
  return cache
    .put({ formatVersion: 1, key, recordedAt: new Date().toISOString(), request: normalised, response: { message: response.message, finishReason: response.finishReason, usage: response.usage, model: response.model, ...(response.tokens ? { tokens: response.tokens } : {}) } }, positionalKey(normalised))
    .catch((err: unknown) => log(`could not record a response in the request cache ${cache.dir}: ${err instanceof Error ? err.message : String(err)}`));
}

export function refusalOf(err: unknown): CachedRefusal | undefined {
  if (err instanceof ContextWindowExceeded) return { kind: 'context_overflow', message: err.message, ...(err.contextWindow !== undefined ? { contextWindow: err.contextWindow } : {}) };
  if (err instanceof ToolsUnsupported) return { kind: 'tools_unsupported', message: err.message };
  return undefined;
}

function refusalError(r: CachedRefusal): Error {
  // The prompt's count is read again from the recorded message, so a replay recalibrates as the call did.
  return r.kind === 'context_overflow' ? new ContextWindowExceeded(r.message, r.contextWindow, promptTokensNamedIn(r.message)) : new ToolsUnsupported(r.message);
}
