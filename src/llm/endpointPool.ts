import type OpenAI from 'openai';
import { openaiSdk } from './openaiModule.js';
import pLimit from 'p-limit';
import type { LimitFunction } from 'p-limit';
import { cancellationOf, throwIfCancelled } from '../core/ports/cancellation.js';
import type { Cancellation } from '../core/ports/cancellation.js';
import type { EndpointConfig } from '../core/spec/run.js';

export interface EndpointTarget {
  readonly baseUrl: string;
  /** Created at the first request, so a pool for a replay-only run never needs the key. */
  readonly client: OpenAI;
  /** Requests assigned to this URL, queued or running. */
  inFlight: number;
  readonly limit: LimitFunction;
}

/**
 * The base URLs of one endpoint (a vLLM/SGLang fleet) with a concurrency limit each. Roles that share an endpoint
 * should share its pool, so the limit holds for the endpoint and not per role.
 */
export interface EndpointPool {
  readonly endpoint: EndpointConfig;
  /**
   * Runs `fn` on the base URL with the fewest requests in flight (ties go round-robin), within its limit. A call
   * cancelled while it waits for a slot rejects at once with the cancellation and `fn` never runs; once `fn` has
   * started, cancelling it is `fn`'s business.
   */
  run<T>(fn: (target: EndpointTarget) => Promise<T>, signal?: Cancellation): Promise<T>;
  /** In-flight counts per base URL, for tests and status displays. */
  load(): { baseUrl: string; inFlight: number }[];
}

/**
 * `apiKey` may be a function: it is then called at the first request only, so a host can build pools up front
 * for a run that may turn out to be fully replayed from the cache (and need no key at all).
 */
export function createEndpointPool(endpoint: EndpointConfig, apiKey: string | (() => string)): EndpointPool {
  let key: string | undefined = typeof apiKey === 'string' ? apiKey : undefined;
  const keyOf = (): string => (key ??= (apiKey as () => string)());
  const targets: EndpointTarget[] = endpoint.baseUrls.map((baseUrl) => {
    let client: OpenAI | undefined;
    return {
      baseUrl,
      get client(): OpenAI {
        // Retries and timeouts are ours (uniform across servers and testable), so the SDK's are switched off;
        // its own timeout is only a backstop far beyond ours. Organization and project are pinned to null so the
        // SDK does not pick OPENAI_ORG_ID / OPENAI_PROJECT_ID up and send them to an unrelated server.
        return (client ??= new (openaiSdk().OpenAI)({
          baseURL: baseUrl,
          apiKey: keyOf(),
          organization: null,
          project: null,
          webhookSecret: null,
          maxRetries: 0,
          timeout: endpoint.timeoutMs * 2 + 60_000,
        }));
      },
      inFlight: 0,
      limit: pLimit(endpoint.maxConcurrency),
    };
  });
  let turn = 0;

  const pick = (): EndpointTarget => {
    let best: EndpointTarget | undefined;
    for (let i = 0; i < targets.length; i++) {
      const t = targets[(turn + i) % targets.length] as EndpointTarget;
      if (!best || t.inFlight < best.inFlight) best = t;
    }
    turn = (turn + 1) % targets.length;
    return best as EndpointTarget;
  };

  return {
    endpoint,
    async run(fn, signal) {
      // A call cancelled before it asks takes no turn of the round-robin.
      throwIfCancelled(signal);
      const target = pick();
      target.inFlight++;
      try {
        return await whenFree(target.limit, () => fn(target), signal);
      } finally {
        target.inFlight--;
      }
    },
    load: () => targets.map((t) => ({ baseUrl: t.baseUrl, inFlight: t.inFlight })),
  };
}

/**
 * `fn` within `limit`, where the wait for a slot can be cancelled. p-limit cannot take an entry out of its queue, so
 * a cancelled entry stays there, and when its turn comes it hands the slot straight back without running `fn`.
 */
export function whenFree<T>(limit: LimitFunction, fn: () => Promise<T>, signal?: Cancellation): Promise<T> {
  if (!signal) return limit(fn);
  if (signal.aborted) return Promise.reject(cancellationOf(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(cancellationOf(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    limit(async (): Promise<T | undefined> => {
      // From here on the started call answers to the signal itself (the request is aborted, not abandoned).
      signal.removeEventListener('abort', onAbort);
      return signal.aborted ? undefined : fn();
    }).then((value) => resolve(value as T), reject);
  });
}
