import type { Clock } from '../ports/clock.js';
import { zeroUsage, type Usage } from '../ports/model.js';
import { rolloutRng, type Rng } from '../ports/rng.js';
import type { CollectedLogs, Sandbox } from '../ports/sandbox.js';
import type { UserTurn } from '../roles/ports.js';
import { wallClockBudget } from './budgets.js';
import type { RolloutDeps, RolloutPlan } from './rolloutPlan.js';
import type { TokenTurn } from './tokenSidecar.js';
import type { AfterEpisodeStep, AtifStep, ErrorKind, RolloutRecord, UnfinishedStep, UserRating, VerificationRecord, VerifierOutcome } from './trajectory.js';

export type EndReason =
  | { status: 'terminated'; submitted: boolean; stop?: UserTurn['stop'] }
  | { status: 'truncated'; reason: NonNullable<RolloutRecord['truncationReason']> };

/** Which kind of call is under way, so a failure is classed by where it came from (outcome classes). */
export type CallPhase = 'start' | 'sandbox' | 'model';

/** Everything one rollout gathers while it plays, read at the end to make its record. */
export interface Episode {
  readonly clock: Clock;
  readonly rng: Rng;
  readonly startedMs: number;
  readonly startedAt: string;
  /** The wall-clock budget and the caller's cancellation in one (`wallClockBudget`). */
  readonly signal: AbortSignal;
  readonly wallTimer: ReturnType<typeof setTimeout> | undefined;
  readonly steps: AtifStep[];
  readonly timing: { sandboxMs: number; modelMs: number };
  usage: Usage;
  /** A session shell was asked for and at least one command ran stateless (no channel): the record says so. */
  ranStateless: boolean;
  /** The sandbox the rollout runs in and stops at its end: undefined before it starts and once verify stopped it. */
  sandbox: Sandbox | undefined;
  /** Where the rollout's latest sandbox ran (the record's `sandbox.host`), kept when that sandbox is let go. */
  host: string | undefined;
  verifier: VerifierOutcome | undefined;
  rating: UserRating | undefined;
  tags: string[];
  end: EndReason | undefined;
  /** Where the rollout is: the agent's episode (which sets `end`), then the steps after it. */
  stage: 'episode' | AfterEpisodeStep;
  unfinished: UnfinishedStep | undefined;
  error: string | undefined;
  errorKind: ErrorKind | undefined;
  fault: string | undefined;
  verification: VerificationRecord | undefined;
  logs: CollectedLogs | undefined;
  agentTurns: number;
  phase: CallPhase;
  sandboxUp: boolean;
  tokenTurns: TokenTurn[];
}

/** A new episode: its random stream, start time and wall-clock budget (running from now). */
export function beginEpisode(plan: RolloutPlan, deps: RolloutDeps): Episode {
  const { clock } = deps;
  const rng = rolloutRng(plan.runSeed, plan.rolloutId);
  const startedMs = clock.now();
  const startedAt = clock.isoNow();
  const wall = wallClockBudget(deps.budgets, deps.signal);
  return {
    clock, rng, startedMs, startedAt, signal: wall.signal, wallTimer: wall.timer,
    steps: [], timing: { sandboxMs: 0, modelMs: 0 }, usage: zeroUsage(), ranStateless: false,
    sandbox: undefined, host: undefined, verifier: undefined, rating: undefined, tags: [], end: undefined, stage: 'episode', unfinished: undefined,
    error: undefined, errorKind: undefined, fault: undefined, verification: undefined, logs: undefined,
    agentTurns: 0, phase: 'start', sandboxUp: false, tokenTurns: [],
  };
}

/** Appends a step to the trajectory, numbered and stamped. */
export function recordStep(ep: Episode, s: Omit<AtifStep, 'step_id' | 'timestamp'>): AtifStep {
  const full: AtifStep = { step_id: ep.steps.length + 1, timestamp: ep.clock.isoNow(), ...s };
  ep.steps.push(full);
  return full;
}

/** Runs a sandbox or model call, adding its time to that bucket and noting the phase a failure would come from. */
export async function timed<T>(ep: Episode, bucket: 'sandboxMs' | 'modelMs', work: () => Promise<T>): Promise<T> {
  ep.phase = bucket === 'modelMs' ? 'model' : ep.sandboxUp ? 'sandbox' : 'start';
  const t0 = ep.clock.now();
  try {
    return await work();
  } finally {
    ep.timing[bucket] += ep.clock.now() - t0;
  }
}
