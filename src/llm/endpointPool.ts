import OpenAI from 'openai';
import pLimit from 'p-limit';
import type { LimitFunction } from 'p-limit';
import type { EndpointConfig } from '../core/spec/run.js';

export interface EndpointTarget {
  readonly baseUrl: string;
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
  /** Runs `fn` on the base URL with the fewest requests in flight (ties go round-robin), within its limit. */
  run<T>(fn: (target: EndpointTarget) => Promise<T>): Promise<T>;
  /** In-flight counts per base URL, for tests and status displays. */
  load(): { baseUrl: string; inFlight: number }[];
}

export function createEndpointPool(endpoint: EndpointConfig, apiKey: string): EndpointPool {
  const targets: EndpointTarget[] = endpoint.baseUrls.map((baseUrl) => ({
    baseUrl,
    // Retries and timeouts are ours (uniform across servers and testable), so the SDK's are switched off; its
    // own timeout is only a backstop far beyond ours.
    client: new OpenAI({ baseURL: baseUrl, apiKey, maxRetries: 0, timeout: endpoint.timeoutMs * 2 + 60_000 }),
    inFlight: 0,
    limit: pLimit(endpoint.maxConcurrency),
  }));
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
    async run(fn) {
      const target = pick();
      target.inFlight++;
      try {
        return await target.limit(() => fn(target));
      } finally {
        target.inFlight--;
      }
    },
    load: () => targets.map((t) => ({ baseUrl: t.baseUrl, inFlight: t.inFlight })),
  };
}
