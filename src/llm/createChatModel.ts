import { openaiSdk } from './openaiModule.js';
import { throwIfCancelled } from '../core/ports/cancellation.js';
import type { Cancellation } from '../core/ports/cancellation.js';
import { addUsage, ContextWindowExceeded, ToolsUnsupported, zeroUsage } from '../core/ports/model.js';
import type { ChatModel, ChatRequest, ChatResponse, ModelStats, Usage } from '../core/ports/model.js';
import type { EndpointConfig } from '../core/spec/run.js';
import { isSecret, resolveApiKey } from './apiKey.js';
import { fetchContextWindow } from './contextWindow.js';
import { callCostUsd } from './cost.js';
import { createEndpointPool } from './endpointPool.js';
import type { EndpointPool, EndpointTarget } from './endpointPool.js';
import { kindOf400, ModelError, windowNamedIn } from './modelError.js';
import type { ModelErrorKind } from './modelError.js';
import { modelSettingsOf, parseLlmRole } from './llmRole.js';
import type { LlmRoleInput } from './llmRole.js';
import { fromCompletion, fromStream, toWireParams } from './openaiWire.js';
import type { WireAnswer, WireParams } from './openaiWire.js';
import type { CacheEntry, CachedRefusal, RequestCache } from './requestCache.js';
import { canonicalJson, describeRequest, normaliseRequest, positionalKey, requestCacheKey, sha256 } from './requestKey.js';
import type { NormalisedRequest } from './requestKey.js';
import { defaultBackoff, isRetryableStatus, parseRetryAfter, retryDelayMs } from './retryPolicy.js';
import type { BackoffPolicy } from './retryPolicy.js';
import { scrubSecrets } from './scrubSecrets.js';

/** An LLM role as written in a run config (defaults optional). */
export type LlmRoleConfig = LlmRoleInput;

export interface ChatModelOptions {
  /** A key handed over by the host (the editor's SecretStorage); wins over the endpoint's `apiKeyEnv`. */
  apiKey?: string;
  /** Where `apiKeyEnv` is looked up; defaults to process.env. */
  env?: Record<string, string | undefined>;
  /** Share one pool between the roles of an endpoint so its concurrency limit holds for all of them. */
  pool?: EndpointPool;
  cache?: RequestCache;
  backoff?: Partial<BackoffPolicy>;
  /** Source of jitter; defaults to Math.random (jitter is about spreading load, not about results). */
  random?: () => number;
  /** How to wait between retries; a test can record the delays it was asked for. */
  sleep?: (ms: number, signal?: Cancellation) => Promise<void>;
  /** Receives one scrubbed line per retry and per failure. */
  log?: (line: string) => void;
}

/** One failed attempt, thrown out of the pool slot so the retry wait happens outside the concurrency limit. */
class AttemptFailure extends Error {
  constructor(
    readonly error: ModelError,
    readonly retryAfterMs?: number,
  ) {
    super(error.message);
  }
}

/** A ChatModel over any OpenAI-compatible endpoint: cache, retries, timeouts, limits, balancing and cost. */
export function createChatModel(endpoint: EndpointConfig, roleInput: LlmRoleConfig, options: ChatModelOptions = {}): ChatModel {
  const role = parseLlmRole(roleInput);
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

  const attempt = async (target: EndpointTarget, request: ChatRequest, params: WireParams): Promise<WireAnswer> => {
    // Creating the client may resolve the key, and fail with an actionable missing-key error.
    const client = target.client;
    // The pool may come from the host with a key we were never given: scrub that one too.
    addSecret(client.apiKey);
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, endpoint.timeoutMs);
    const onCancel = (): void => controller.abort();
    request.signal?.addEventListener('abort', onCancel, { once: true });
    stats.networkRequests++;
    try {
      if (request.stream) {
        const stream = await client.chat.completions.create(
          { ...params, stream: true, stream_options: { include_usage: true } },
          { signal: controller.signal },
        );
        return await fromStream(stream);
      }
      return fromCompletion(await client.chat.completions.create(params, { signal: controller.signal }));
    } catch (err) {
      throwIfCancelled(request.signal);
      throw classify(err, timedOut, target.baseUrl, Array.isArray(params.tools) && params.tools.length > 0);
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onCancel);
    }
  };

  const classify = (err: unknown, timedOut: boolean, baseUrl: string, sentTools: boolean): AttemptFailure => {
    const at = where(baseUrl);
    if (timedOut) {
      return new AttemptFailure(new ModelError('timeout', `${at}: no complete answer within ${endpoint.timeoutMs} ms. Raise endpoints[].timeoutMs or check the server's load.`));
    }
    const { APIError, APIConnectionError } = openaiSdk();
    if (err instanceof APIError && typeof err.status === 'number') {
      const status = err.status;
      const detail = scrub(err.message);
      const kind: ModelErrorKind = status === 429 ? 'rate_limited' : isRetryableStatus(status) ? 'server_error' : status === 400 ? kindOf400(detail, sentTools) : 'http_error';
      return new AttemptFailure(new ModelError(kind, `${at}: HTTP ${status}: ${detail}. ${adviceFor(status, endpoint)}`, 0, status), parseRetryAfter(err.headers));
    }
    if (err instanceof APIConnectionError) {
      return new AttemptFailure(new ModelError('connection', `${at}: could not reach the server (${scrub(err.message)}). Check that it is running at that URL.`));
    }
    const message = err instanceof Error ? err.message : String(err);
    return new AttemptFailure(new ModelError('invalid_response', `${at}: unreadable answer (${scrub(message)}). Check that the server speaks the Chat Completions API.`));
  };

  const network = async (request: ChatRequest, params: WireParams): Promise<WireAnswer> => {
    const maxAttempts = endpoint.maxRetries + 1;
    for (let n = 1; ; n++) {
      throwIfCancelled(request.signal);
      try {
        return await getPool().run((target) => attempt(target, request, params));
      } catch (err) {
        if (!(err instanceof AttemptFailure)) throw err;
        const { error } = err;
        if (!error.retryable || n >= maxAttempts) {
          stats.failures++;
          const final = new ModelError(error.kind, scrub(`model call failed after ${n} attempt${n > 1 ? 's' : ''}: ${error.message}`), n, error.status);
          log(final.message);
          // Two refusals the roles act on: a prompt too long (the rollout ends truncated: context) and no tools API.
          if (error.kind === 'context_overflow') throw new ContextWindowExceeded(final.message, windowNamedIn(final.message));
          if (error.kind === 'tools_unsupported') throw new ToolsUnsupported(final.message);
          throw final;
        }
        const delay = retryDelayMs(n, backoff, random, err.retryAfterMs);
        stats.retries++;
        log(scrub(`retry ${n}/${endpoint.maxRetries} in ${delay} ms: ${error.message}`));
        await sleep(delay, request.signal);
      }
    }
  };

  // The window is asked once per model; a recording keeps it, so a replay asks nothing.
  let window: Promise<number | undefined> | undefined;
  const discoverWindow = async (): Promise<number | undefined> => {
    const metaKey = sha256(`context-window:${canonicalJson({ baseUrls: normaliseRequest({}, endpoint.baseUrls).baseUrls, model: role.model })}`);
    if (cache && cache.mode !== 'off') {
      const hit = await cache.getMeta(metaKey);
      if (hit) return typeof hit.value === 'number' ? hit.value : undefined;
      if (cache.mode === 'replay') return undefined;
    }
    let found: number | undefined;
    try {
      found = await getPool().run(async (target) => {
        addSecret(target.client.apiKey);
        stats.networkRequests++;
        return fetchContextWindow(target.client, role.model, endpoint.timeoutMs);
      });
    } catch (err) {
      log(scrub(`could not read the context window of "${role.model}" from ${endpoint.name}'s /v1/models (${err instanceof Error ? err.message : String(err)}); set contextWindow on the role to fit long conversations`));
    }
    if (cache?.mode === 'rw') await cache.putMeta(metaKey, found ?? null).catch(() => undefined);
    return found;
  };

  /** The recording of a request: by its exact key, else (replay only) by its place in the episode; a replay miss throws. */
  const lookup = async (c: RequestCache, normalised: NormalisedRequest, key: string): Promise<CacheEntry | undefined> => {
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
  };

  return {
    label: `llm ${endpoint.name}/${role.model}`,
    contextWindow() {
      if (role.contextWindow !== undefined) return Promise.resolve(role.contextWindow);
      window ??= discoverWindow();
      return window;
    },
    settings: modelSettingsOf(endpoint, role),
    stats: () => ({ ...stats, usage: { ...stats.usage } }),
    async complete(request) {
      stats.calls++;
      const params = toWireParams(role, request);
      const started = performance.now();
      // Hashing the request costs CPU per call; only a cache needs it.
      const useCache = cache !== undefined && cache.mode !== 'off';
      const normalised = useCache ? normaliseRequest(params, endpoint.baseUrls) : undefined;
      const key = normalised ? requestCacheKey(normalised) : '';
      if (cache && normalised) {
        const recorded = await lookup(cache, normalised, key);
        if (recorded?.refusal) {
          stats.cacheHits++;
          throw refusalError(recorded.refusal);
        }
        if (recorded?.response) {
          stats.cacheHits++;
          stats.usage = addUsage(stats.usage, recorded.response.usage);
          return { ...recorded.response, cached: true, latencyMs: performance.now() - started };
        }
      }
      let answer: WireAnswer;
      try {
        // A server may echo the key back in what it generates; the answer is stored in run files and the cache.
        answer = scrubAnswer(await network(request, params), scrub);
      } catch (err) {
        const refusal = refusalOf(err);
        if (refusal && cache?.mode === 'rw' && normalised) {
          await cache.put({ formatVersion: 1, key, recordedAt: new Date().toISOString(), request: normalised, refusal }, positionalKey(normalised)).catch(() => undefined);
        }
        throw err;
      }
      const costUsd = callCostUsd(endpoint.prices, [role.model, answer.model], answer.promptTokens, answer.completionTokens);
      const usage: Usage = { promptTokens: answer.promptTokens, completionTokens: answer.completionTokens, cachedTokens: answer.cachedTokens, costUsd };
      const response: ChatResponse = {
        message: { content: answer.content, toolCalls: answer.toolCalls, ...(answer.reasoning !== undefined ? { reasoning: answer.reasoning } : {}) },
        finishReason: answer.finishReason,
        usage,
        model: answer.model || role.model,
        cached: false,
        latencyMs: performance.now() - started,
        ...(answer.tokens ? { tokens: answer.tokens } : {}),
      };
      stats.usage = addUsage(stats.usage, usage);
      stats.spentUsd += costUsd;
      if (cache?.mode === 'rw' && normalised) {
        // A paid answer is worth more than its recording: a failed write is logged, and a later replay reports the miss.
        await cache
          .put({ formatVersion: 1, key, recordedAt: new Date().toISOString(), request: normalised, response: { message: response.message, finishReason: response.finishReason, usage, model: response.model, ...(response.tokens ? { tokens: response.tokens } : {}) } }, positionalKey(normalised))
          .catch((err: unknown) => log(`could not record a response in the request cache ${cache.dir}: ${err instanceof Error ? err.message : String(err)}`));
      }
      return response;
    },
  };
}

function refusalOf(err: unknown): CachedRefusal | undefined {
  if (err instanceof ContextWindowExceeded) return { kind: 'context_overflow', message: err.message, ...(err.contextWindow !== undefined ? { contextWindow: err.contextWindow } : {}) };
  if (err instanceof ToolsUnsupported) return { kind: 'tools_unsupported', message: err.message };
  return undefined;
}

function refusalError(r: CachedRefusal): Error {
  return r.kind === 'context_overflow' ? new ContextWindowExceeded(r.message, r.contextWindow) : new ToolsUnsupported(r.message);
}

function scrubAnswer(answer: WireAnswer, scrub: (text: string) => string): WireAnswer {
  return {
    ...answer,
    content: answer.content === null ? null : scrub(answer.content),
    ...(answer.reasoning !== undefined ? { reasoning: scrub(answer.reasoning) } : {}),
    toolCalls: answer.toolCalls.map((c) => ({ id: scrub(c.id), name: scrub(c.name), arguments: scrub(c.arguments) })),
    model: scrub(answer.model),
  };
}

function adviceFor(status: number, endpoint: EndpointConfig): string {
  if (status === 401 || status === 403) {
    return endpoint.apiKeyEnv ? `Check the API key in ${endpoint.apiKeyEnv} (or the one stored in the editor).` : 'The server wants a key: set apiKeyEnv on the endpoint.';
  }
  if (status === 404) return 'Check the model name and the base URL (it usually ends in /v1).';
  if (status === 429) return 'Lower maxConcurrency or raise maxRetries for this endpoint.';
  if (status >= 500) return "Check the server's log.";
  return 'The server refused the request.';
}

function sleepCancellable(ms: number, signal?: Cancellation): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason instanceof Error ? signal.reason : new Error('cancelled'));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      try {
        throwIfCancelled(signal);
      } catch (err) {
        reject(err);
      }
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
