import { openaiSdk } from './openaiModule.js';
import { throwIfCancelled } from '../core/ports/cancellation.js';
import type { ChatRequest } from '../core/ports/model.js';
import type { EndpointConfig } from '../core/spec/run.js';
import type { ChatModelState } from './chatModelState.js';
import type { EndpointTarget } from './endpointPool.js';
import { kindOf400, ModelError } from './modelError.js';
import type { ModelErrorKind } from './modelError.js';
import { fromCompletion, fromStream } from './openaiWire.js';
import type { WireAnswer, WireParams } from './openaiWire.js';
import { isRetryableStatus, parseRetryAfter } from './retryPolicy.js';

/** One failed attempt, thrown out of the pool slot so the retry wait happens outside the concurrency limit. */
export class AttemptFailure extends Error {
  constructor(
    readonly error: ModelError,
    readonly retryAfterMs?: number,
  ) {
    super(error.message);
  }
}

/** One request to one base URL, under the endpoint's timeout and the request's cancellation. */
export async function attemptRequest(state: ChatModelState, target: EndpointTarget, request: ChatRequest, params: WireParams): Promise<WireAnswer> {
  // Creating the client may resolve the key, and fail with an actionable missing-key error.
  const client = target.client;
  // The pool may come from the host with a key we were never given: scrub that one too.
  state.addSecret(client.apiKey);
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, state.endpoint.timeoutMs);
  const onCancel = (): void => controller.abort();
  request.signal?.addEventListener('abort', onCancel, { once: true });
  state.stats.networkRequests++;
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
    throw classifyFailure(state, err, timedOut, target.baseUrl, Array.isArray(params.tools) && params.tools.length > 0);
  } finally {
    clearTimeout(timer);
    request.signal?.removeEventListener('abort', onCancel);
  }
}

/** What went wrong, as a ModelError of a kind the retry loop and the roles act on, with advice and no key. */
function classifyFailure(state: ChatModelState, err: unknown, timedOut: boolean, baseUrl: string, sentTools: boolean): AttemptFailure {
  const { endpoint, scrub } = state;
  const at = state.where(baseUrl);
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
