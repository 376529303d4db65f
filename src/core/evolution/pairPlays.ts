import pLimit from 'p-limit';
import { CancelledError, throwIfCancelled } from '../ports/cancellation.js';
import { inBand } from '../metrics/band.js';
import { pairStats, type PairStatsFull } from '../metrics/pairStats.js';
import { isRetryable, playRollout, type RolloutDeps, type RolloutPlan } from '../rollout/engine.js';
import { summarizeRollout, type RolloutRecord } from '../rollout/trajectory.js';
import type { AgentConfig } from '../spec/agent.js';
import type { RunConfig } from '../spec/run.js';
import type { Archive, PairEntry } from './archive.js';
import type { ControllerDeps } from './controllerPorts.js';
import { gen4, rolloutDepsOf, type GenerationContext } from './generationContext.js';

/**
 * Plays the generation's pairs (k plays each, plus hint plays) and returns their records in plan order. Rollouts a
 * killed run already recorded are read back, not played again.
 */
export async function playPairs(deps: Pick<ControllerDeps, 'config' | 'recorder' | 'history' | 'signal' | 'onProgress'>, ctx: GenerationContext, pairs: PairEntry[], agent: AgentConfig): Promise<RolloutRecord[]> {
  const { config, recorder } = deps;
  const g = ctx.generation;
  const plans = pairs.flatMap((p) => rolloutPlans(p, g, ctx.archive, agent, config, ctx.runId));
  const records = new Map<string, RolloutRecord>();
  for (const plan of plans) {
    const done = deps.history?.rollout(g, plan.rolloutId);
    if (done) records.set(plan.rolloutId, done);
  }
  deps.onProgress?.({ type: 'generation.started', generation: g, generations: config.generations, rollouts: plans.length, alreadyDone: records.size });

  const limit = pLimit(config.concurrency);
  let done = records.size;
  // Persistence is pipelined: the recorder's serial queue makes each rollout file durable before the event that
  // announces it, while the next rollout already plays. Everything is awaited before the generation is scored.
  const persisted: Promise<unknown>[] = [];
  const settled = await Promise.allSettled(
    plans.filter((p) => !records.has(p.rolloutId)).map((plan) =>
      limit(async () => {
        if (deps.signal?.aborted) throw new CancelledError();
        persisted.push(recorder.append({ type: 'rollout.started', generation: g, rolloutId: plan.rolloutId, pairId: plan.pairId }));
        const record = await playWithRetry(plan, rolloutDepsOf(ctx));
        const summary = summarizeRollout(record);
        persisted.push(recorder.writeRollout(record), recorder.append({ type: 'rollout.finished', summary }));
        records.set(plan.rolloutId, record);
        deps.onProgress?.({ type: 'rollout.finished', generation: g, done: ++done, total: plans.length, summary });
      }),
    ),
  );
  await Promise.all(persisted);
  const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected' && !(s.reason instanceof CancelledError) && !deps.signal?.aborted);
  if (failure) throw failure.reason;
  throwIfCancelled(deps.signal);
  // In plan order, so metrics never depend on completion order.
  return plans.map((p) => records.get(p.rolloutId)!);
}

/** How many children were measured for the first time this generation, and how many of those landed in the band. */
export interface FirstMeasure { measured: number; inBand: number }

/** Each pair's statistics of this generation's plays, pooled into the archive's evidence for the agent that played. */
export function scorePairs(archive: Archive, agentId: string, config: RunConfig, g: number, pairs: PairEntry[], ordered: RolloutRecord[]): { stats: PairStatsFull[]; firstMeasure: FirstMeasure } {
  const stats: PairStatsFull[] = pairs.map((p) => pairStats(p, ordered.filter((r) => r.pairId === p.pairId).map(summarizeRollout), config));
  const firstMeasure = { measured: 0, inBand: 0 };
  for (const s of stats) {
    archive.record(s.pairId, g, s);
    const pair = archive.pairs.get(s.pairId)!;
    archive.addOutcomes(pair, agentId, s.successes, s.plays);
    if (pair.source === 'child' && pair.firstMeasured === undefined && s.plays > 0) {
      pair.firstMeasured = g;
      firstMeasure.measured++;
      if (inBand(s.successRate, config.band)) firstMeasure.inBand++;
    }
  }
  archive.fresh = archive.fresh.filter((id) => !pairs.some((p) => p.pairId === id));
  return { stats, firstMeasure };
}

const maxHostRetries = 3;

/** A rollout whose sandbox host was lost is played again (the pool places it on another host); same id, same result. */
async function playWithRetry(plan: RolloutPlan, deps: RolloutDeps): Promise<RolloutRecord> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await playRollout(plan, deps);
    } catch (err) {
      if (!isRetryable(err) || attempt >= maxHostRetries) throw err;
    }
  }
}

function rolloutPlans(pair: PairEntry, g: number, archive: Archive, agent: AgentConfig, config: RunConfig, runId: string): RolloutPlan[] {
  const env = archive.envs.get(pair.envId)!;
  const user = archive.users.get(pair.userId)!;
  const base = { runId, runSeed: config.seed, generation: g, pairId: pair.pairId, env, user, agent };
  const id = (kind: 't' | 'h', t: number): string => `g${gen4(g)}-${pair.pairId}-${kind}${t}`;
  const plans: RolloutPlan[] = [];
  for (let t = 0; t < config.k; t++) plans.push({ ...base, rolloutId: id('t', t), trial: t, hint: false });
  if (env.hint) for (let t = 0; t < config.hintPlays; t++) plans.push({ ...base, rolloutId: id('h', t), trial: t, hint: true });
  return plans;
}
