import { zeroUsage } from '../core/ports/model.js';
import type { ModelStats } from '../core/ports/model.js';
import type { Cancellation } from '../core/ports/cancellation.js';
import type { EndpointConfig } from '../core/spec/run.js';
import { isSecret, resolveApiKey } from './apiKey.js';
import type { ChatModelOptions } from './createChatModel.js';
import { createEndpointPool } from './endpointPool.js';
import type { EndpointPool } from './endpointPool.js';
import type { LlmRoleSettings } from './llmRole.js';
import type { RequestCache } from './requestCache.js';
import { defaultBackoff } from './retryPolicy.js';
import type { BackoffPolicy } from './retryPolicy.js';
import { scrubSecrets } from './scrubSecrets.js';
import { sleepCancellable } from './sleepCancellable.js';

/** What every call of one chat model shares: its endpoint and role, its counters, the keys to scrub, its pool. */
export interface ChatModelState {
  readonly endpoint: EndpointConfig;
  readonly role: LlmRoleSettings;
  readonly backoff: BackoffPolicy;
  readonly random: () => number;
  readonly sleep: (ms: number, signal?: Cancellation) => Promise<void>;
  readonly log: (line: string) => void;
  readonly cache: RequestCache | undefined;
  /** Mutated in place by every call; `ChatModel.stats` hands out copies. */
  readonly stats: ModelStats;
  /** Adds a key to those scrubbed from errors, logs and answers. */
  addSecret(key: string | undefined): void;
  scrub(text: string): string;
  getPool(): EndpointPool;
  /** Where a call went, for error messages. */
  where(baseUrl: string): string;
}

export function createChatModelState(endpoint: EndpointConfig, role: LlmRoleSettings, options: ChatModelOptions): ChatModelState {
  const backoff: BackoffPolicy = { ...defaultBackoff, ...options.backoff };
  const random = options.random ?? Math.random;
  const sleep = options.sleep ?? sleepCancellable;
  const log = options.log ?? (() => undefined);
  const cache = options.cache;
  const stats: ModelStats = { calls: 0, networkRequests: 0, cacheHits: 0, retries: 0, failures: 0, usage: zeroUsage(), spentUsd: 0 };
  const secrets: string[] = isSecret(options.apiKey) ? [options.apiKey] : [];
  const addSecret = (key: string | undefined): void => {
    if (isSecret(key) && !secrets.includes(key)) secrets.push(key);
  };
  let pool = options.pool;

  // The key is resolved at the first network call, so a replay-only run needs no key at all.
  const getPool = (): EndpointPool => {
    if (!pool) {
      const key = resolveApiKey(endpoint, options.apiKey, options.env ?? process.env);
      addSecret(key);
      pool = createEndpointPool(endpoint, key);
    }
    return pool;
  };
  const scrub = (text: string): string => scrubSecrets(text, secrets);
  const where = (baseUrl: string): string => `endpoint "${endpoint.name}" (${baseUrl}), model "${role.model}"`;
  return { endpoint, role, backoff, random, sleep, log, cache, stats, addSecret, scrub, getPool, where };
}
