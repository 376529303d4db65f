import { CancelledError, type Cancellation } from '../ports/cancellation.js';
import { isContextWindowExceeded } from '../ports/model.js';
import { BudgetExceeded } from './budgets.js';
import type { CallPhase, Episode } from './episode.js';
import type { AfterEpisodeStep, ErrorKind, UnfinishedStep } from './trajectory.js';

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

/** Records what stopped the rollout: a spent wall clock, a prompt too long for the window, or an error. */
function recordFailure(ep: Episode, err: unknown, reason: unknown): void {
  // Neither is an infrastructure error: the run's own budget, or a conversation too long for its model.
  if (reason instanceof BudgetExceeded) endOrLeaveUnfinished(ep, 'wall_clock');
  else if (isContextWindowExceeded(err)) endOrLeaveUnfinished(ep, 'context');
  else recordError(ep, err);
}

/**
 * The ending says how the agent's episode ended and is set once. During the episode a spent wall clock or a prompt
 * too long ends it (truncated); after it (verification, rating, judging) the ending stands, and the step that did
 * not finish is recorded instead: a submitted rollout once read "truncated: wall_clock" when the clock ran out
 * while the user rated it, though a context overflow at the same point kept "submitted".
 */
function endOrLeaveUnfinished(ep: Episode, reason: UnfinishedStep['reason']): void {
  if (ep.stage === 'episode') ep.end ??= { status: 'truncated', reason };
  else ep.unfinished = { step: ep.stage, reason, note: unfinishedNote(ep.stage, reason) };
}

const stepNames: Record<AfterEpisodeStep, string> = { verification: 'verification', rating: "the user's rating", judging: "the judge's tagging" };
// Success is made of the verifier's outcome and the user's rating, so a play missing either is no outcome in the
// run's evidence (verdict.ts), while its reward counts what is missing as below; the tags only shape the reward.
const whatIsMissing: Record<AfterEpisodeStep, string> = {
  verification: 'no verifier outcome, user rating or judge tags; the verifier reward counts as 0, and the play is not counted as a success or a failure in the evidence',
  rating: "no user rating or judge tags; the user's goal counts as not met in the reward, and the play is not counted as a success or a failure in the evidence",
  judging: 'no judge tags; the rubric term counts as 0 (success does not depend on the tags, so the play counts as evidence)',
};

/** The unfinished step in words: why, what is missing, what it counts as in the reward and in the evidence. */
function unfinishedNote(step: AfterEpisodeStep, reason: UnfinishedStep['reason']): string {
  const why = reason === 'wall_clock' ? `the run's wall clock ran out during ${stepNames[step]}` : `the prompt for ${stepNames[step]} could not fit its model's context window`;
  return `${why}: ${whatIsMissing[step]}`;
}

function recordError(ep: Episode, err: unknown): void {
  const message = err instanceof Error ? err.message : String(err);
  const kind = classifyFailure(err, ep.phase);
  if (kind === 'fault') ep.fault = message;
  else {
    ep.error = message;
    ep.errorKind = kind;
  }
}
