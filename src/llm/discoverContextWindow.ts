import { cancellationOf, throwIfCancelled } from '../core/ports/cancellation.js';
import type { Cancellation } from '../core/ports/cancellation.js';
import type { ChatModelState } from './chatModelState.js';
import { fetchContextWindow } from './contextWindow.js';
import { ModelError } from './modelError.js';
import { openaiSdk } from './openaiModule.js';
import { canonicalJson, normaliseRequest, sha256 } from './requestKey.js';
import { isRetryableStatus } from './retryPolicy.js';

/** What one look for the window found, and whether asking again could find anything else. */
export interface WindowLookup {
  window: number | undefined;
  /** The recording or the server gave an answer (a window, none, or a definite refusal): asking again gives the same. */
  settled: boolean;
}

/**
 * The model's context window as its server reports it, recorded in the cache's meta; undefined when unknown. Only
 * what the server answered is recorded: a failed read recorded as "none" would pin "unknown" for every later run.
 */
export async function discoverContextWindow(state: ChatModelState, signal?: Cancellation): Promise<WindowLookup> {
  const { endpoint, role, cache, stats, log } = state;
  const metaKey = sha256(`context-window:${canonicalJson({ baseUrls: normaliseRequest({}, endpoint.baseUrls).baseUrls, model: role.model })}`);
  if (cache && cache.mode !== 'off') {
    const hit = await cache.getMeta(metaKey);
    if (hit) return { window: typeof hit.value === 'number' ? hit.value : undefined, settled: true };
    if (cache.mode === 'replay') return { window: undefined, settled: true };
  }
  let found: number | undefined;
  try {
    found = await state.getPool().run(async (target) => {
      state.addSecret(target.client.apiKey);
      stats.networkRequests++;
      return fetchContextWindow(target.client, role.model, endpoint.timeoutMs, signal);
    }, signal);
  } catch (err) {
    // A read its callers gave up on failed nothing: not logged, and not kept, so the next call asks.
    if (signal?.aborted) return { window: undefined, settled: false };
    log(state.scrub(`could not read the context window of "${role.model}" from ${endpoint.name}'s /v1/models (${err instanceof Error ? err.message : String(err)}); set contextWindow on the role to fit long conversations`));
    return { window: undefined, settled: isDefiniteRefusal(err) };
  }
  if (cache?.mode === 'rw') await cache.putMeta(metaKey, found ?? null).catch(() => undefined);
  return { window: found, settled: true };
}

/**
 * Whether a failed read would fail the same way every time (a server without the route, a refused key, no key):
 * asking again on every call would only repeat the request and the log line. A timeout, a dropped connection, a
 * rate limit or a server fault may pass, so those are asked again.
 */
function isDefiniteRefusal(err: unknown): boolean {
  if (err instanceof ModelError) return err.kind === 'missing_key';
  const { APIError } = openaiSdk();
  return err instanceof APIError && typeof err.status === 'number' && !isRetryableStatus(err.status);
}

/** One read of /v1/models that the callers of the moment share; aborted when the last of them has cancelled. */
interface SharedRead {
  /** Never rejects: a failure is a lookup that did not settle. */
  readonly lookup: Promise<WindowLookup>;
  readonly controller: AbortController;
  waiting: number;
}

/**
 * A model's `contextWindow(signal)`: the window once a lookup has settled it, else a read shared by the callers of
 * the moment, each of which may cancel its own wait. A read that failed for now, or that every caller gave up on, is
 * forgotten, so a later call asks again instead of keeping "unknown" for the run.
 */
export function createWindowDiscovery(state: ChatModelState): (signal?: Cancellation) => Promise<number | undefined> {
  let known: { window: number | undefined } | undefined;
  let shared: SharedRead | undefined;
  const forget = (read: SharedRead): void => {
    if (shared === read) shared = undefined;
  };
  const startRead = (): SharedRead => {
    const controller = new AbortController();
    const read: SharedRead = {
      controller,
      waiting: 0,
      lookup: discoverContextWindow(state, controller.signal)
        .catch((): WindowLookup => ({ window: undefined, settled: false }))
        .then((found) => {
          if (found.settled) known = { window: found.window };
          forget(read);
          return found;
        }),
    };
    return read;
  };
  const leave = (read: SharedRead): void => {
    if (--read.waiting > 0) return;
    // Nobody waits for this read any more: stop its request, and let the next call start afresh.
    forget(read);
    read.controller.abort();
  };
  return async (signal) => {
    if (known) return known.window;
    throwIfCancelled(signal);
    const read = (shared ??= startRead());
    return (await waitForRead(read, signal, () => leave(read))).window;
  };
}

/** The shared read's lookup, or this caller's cancellation as soon as it comes. */
function waitForRead(read: SharedRead, signal: Cancellation | undefined, leave: () => void): Promise<WindowLookup> {
  read.waiting++;
  if (!signal) return read.lookup;
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      leave();
      reject(cancellationOf(signal));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    void read.lookup.then((found) => {
      signal.removeEventListener('abort', onAbort);
      resolve(found);
    });
  });
}
