import { throwIfCancelled } from '../core/ports/cancellation.js';
import { ContextWindowExceeded, ToolsUnsupported } from '../core/ports/model.js';
import type { ChatRequest } from '../core/ports/model.js';
import { AttemptFailure, attemptRequest } from './chatAttempt.js';
import type { ChatModelState } from './chatModelState.js';
import { ModelError, promptTokensNamedIn, windowNamedIn } from './modelError.js';
import type { WireAnswer, WireParams } from './openaiWire.js';
import { retryDelayMs } from './retryPolicy.js';

/** The answer over the network: attempts through the pool, retried with backoff while the failure is retryable. */
export async function callWithRetries(state: ChatModelState, request: ChatRequest, params: WireParams): Promise<WireAnswer> {
  // The host's sleep and log are called bare, as plain functions.
  const { endpoint, stats, sleep, log } = state;
  const maxAttempts = endpoint.maxRetries + 1;
  for (let n = 1; ; n++) {
    throwIfCancelled(request.signal);
    try {
      return await state.getPool().run((target) => attemptRequest(state, target, request, params), request.signal);
    } catch (err) {
      if (!(err instanceof AttemptFailure)) throw err;
      const { error } = err;
      if (!error.retryable || n >= maxAttempts) throw finalFailure(state, error, n);
      const delay = retryDelayMs(n, state.backoff, state.random, err.retryAfterMs);
      stats.retries++;
      log(state.scrub(`retry ${n}/${endpoint.maxRetries} in ${delay} ms: ${error.message}`));
      await sleep(delay, request.signal);
    }
  }
}

/** The error a call fails with after its last attempt, counted and logged. */
function finalFailure(state: ChatModelState, error: ModelError, n: number): Error {
  const { stats, log } = state;
  stats.failures++;
  const final = new ModelError(error.kind, state.scrub(`model call failed after ${n} attempt${n > 1 ? 's' : ''}: ${error.message}`), n, error.status);
  log(final.message);
  // Two refusals the roles act on: a prompt too long (the rollout ends truncated: context) and no tools API.
  if (error.kind === 'context_overflow') return new ContextWindowExceeded(final.message, windowNamedIn(final.message), promptTokensNamedIn(final.message));
  if (error.kind === 'tools_unsupported') return new ToolsUnsupported(final.message);
  return final;
}
