import { CancelledError, type Cancellation } from '../ports/cancellation.js';
import { isContextWindowExceeded } from '../ports/model.js';
import { BudgetExceeded } from './budgets.js';
import type { CallPhase, Episode } from './episode.js';
import type { ErrorKind } from './trajectory.js';

/**
 * Errors that say the same rollout may succeed if played again elsewhere: a lost sandbox host. (Model errors are
 * retried by the model adapter itself; when they still fail, the rollout records the error.)
 */
export function isRetryable(err: unknown): boolean {
  return err instanceof Error && err.name === 'SandboxHostLostError';
}

/**
 * Where a failure came from decides its class: a sandbox error after the sandbox was up is the agent's (a failed
 * rollout), except a missing image or a verifier sandbox that would not start; a model call's failure, or a
 * sandbox that never came up, is infrastructure.
 */
export function classifyFailure(err: unknown, phase: CallPhase): ErrorKind | 'fault' {
  const name = err instanceof Error ? err.name : '';
  if (name === 'SandboxHostLostError') return 'sandbox-host';
  if (name === 'SandboxImageMissingError' || name === 'VerifierSandboxStartError') return 'sandbox-start';
  if (phase === 'model') return 'model';
  if (phase === 'start') return 'sandbox-start';
  return 'fault';
}

/**
 * A failure inside the episode: cancellation and a lost sandbox host throw, so the rollout is not recorded; anything
 * else is recorded on the episode and it goes on to its record. Either way the sandbox is left to `playRollout`'s
 * `finally`, the one place that stops it (stopping it here too stopped it twice on every cancellation).
 */
export function settleFailure(ep: Episode, cancel: Cancellation | undefined, err: unknown): void {
  if (cancel?.aborted) throw cancel.reason instanceof Error ? cancel.reason : new CancelledError();
  // The sandbox host died under us (e.g. one Docker host of a pool): the caller replays this rollout elsewhere.
  if (isRetryable(err)) throw err;
  recordFailure(ep, err, ep.signal.reason);
}

/** Records what ended the episode early: a spent wall clock, a prompt too long for the window, or an error. */
function recordFailure(ep: Episode, err: unknown, reason: unknown): void {
  if (reason instanceof BudgetExceeded) {
    ep.end = { status: 'truncated', reason: 'wall_clock' };
  } else if (isContextWindowExceeded(err)) {
    // A rater's or judge's prompt that cannot fit the window is not an infrastructure error either; an episode
    // that already ended keeps its ending (it just has no rating or tags).
    ep.end ??= { status: 'truncated', reason: 'context' };
  } else {
    const message = err instanceof Error ? err.message : String(err);
    const kind = classifyFailure(err, ep.phase);
    if (kind === 'fault') ep.fault = message;
    else {
      ep.error = message;
      ep.errorKind = kind;
    }
  }
}
