import pLimit from 'p-limit';
import { playRollout } from '../rollout/engine.js';
import type { RolloutRecord } from '../rollout/trajectory.js';
import type { AgentConfig } from '../spec/agent.js';
import type { EnvironmentSpec } from '../spec/environment.js';
import type { UserProfile } from '../spec/user.js';
import { rolloutDepsOf, type GenerationContext } from './generationContext.js';

/** One play made for measurement (held-out sets, screening, user effect), not part of the archive's plays. */
export interface MeasurementPlay {
  rolloutId: string;
  env: EnvironmentSpec;
  user: UserProfile;
  agent: AgentConfig;
  trial: number;
  hint?: boolean;
}

/**
 * Plays a batch concurrently (up to the run's limit) and returns the records in the batch's order, so figures never
 * depend on completion order. Every id is logged in the generation's id list (`artifacts/ids/`), so `coevolve eval`
 * can prove its own ids fresh.
 */
export async function playMeasurements(ctx: GenerationContext, plays: MeasurementPlay[], purpose: string): Promise<RolloutRecord[]> {
  const limit = pLimit(ctx.config.concurrency);
  ctx.playedIds?.push(...plays.map((p) => p.rolloutId));
  return Promise.all(
    plays.map((p) =>
      limit(() =>
        playRollout(
          { runId: ctx.runId, runSeed: ctx.config.seed, rolloutId: p.rolloutId, generation: ctx.generation, pairId: purpose, trial: p.trial, hint: p.hint ?? false, env: p.env, user: p.user, agent: p.agent },
          rolloutDepsOf(ctx, { 'coevolve.purpose': purpose }),
        ).then((r) => {
          ctx.onMeasured?.(purpose);
          return r;
        }),
      ),
    ),
  );
}

/**
 * Runs `tasks` at most `concurrency` at a time, each with its own id list, and logs their ids in the tasks' (plan)
 * order once all are done. Logged as each task reached its plays, the ids followed which task got there first, so
 * the same run at another concurrency wrote another `artifacts/ids` file.
 */
export async function inPlanOrder<T>(ctx: GenerationContext, concurrency: number, tasks: ((own: GenerationContext) => Promise<T>)[]): Promise<T[]> {
  const limit = pLimit(concurrency);
  const lists = tasks.map((): string[] => []);
  const results = await Promise.all(tasks.map((task, i) => limit(() => task({ ...ctx, playedIds: lists[i]! }))));
  ctx.playedIds?.push(...lists.flat());
  return results;
}

/** Successes and plays of a batch of verdicts (`verdictOf`); no outcome (null) is no play. */
export function countOutcomes(bits: (boolean | null)[]): { successes: number; trials: number } {
  let successes = 0, trials = 0;
  for (const b of bits) {
    if (b === null) continue;
    trials++;
    if (b) successes++;
  }
  return { successes, trials };
}
