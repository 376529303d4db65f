import pLimit from 'p-limit';
import { systemClock } from '../../core/ports/clock.js';
import type { SandboxBackend } from '../../core/ports/sandbox.js';
import type { Roles } from '../../core/roles/ports.js';
import { playRollout, type RolloutPlan } from '../../core/rollout/engine.js';
import { summarizeRollout, type RolloutRecord } from '../../core/rollout/trajectory.js';
import { pairedDifferences, verdictOf } from '../../core/rollout/verdict.js';
import { cooperativeReferenceUser, referenceAgent } from '../../core/evolution/children.js';
import { probationRules } from '../../core/evolution/userAdmission.js';
import { evalPair, evalRolloutId, evalSummary, evalUserEffectId, evalVersion, minEvalPlays, overlappingIds } from '../../core/metrics/evalResult.js';
import type { EvalResult } from '../../core/metrics/metricsSchema.js';
import { realismIndicators, realismViolations } from '../../core/metrics/realismIndicators.js';
import { meanWithInterval } from '../../core/metrics/summaries.js';
import type { AgentConfig } from '../../core/spec/agent.js';
import type { EnvironmentSpec } from '../../core/spec/environment.js';
import type { UserProfile } from '../../core/spec/user.js';
import type { RunWriter } from '../../store/runWriter.js';
import { UserError } from '../errors.js';
import type { EvalSource } from './evalSource.js';

export interface EvalRunOptions {
  n: number;
  seed: number;
  concurrency: number;
  userEffect: boolean;
  agentRole: string;
  onPlayed?: (done: number, total: number) => void;
}

interface Planned {
  plan: RolloutPlan;
  group: string;
  /** Pair plays are stored like a run's rollouts; user-effect plays share ids between child and parent, so are not. */
  stored: boolean;
}

/**
 * Plays every pair n times on fresh rollout ids (refused if any id was used by the run), the evolved users against
 * their parents on the same fresh ids, records every rollout in `writer` like a run's, and returns the result.
 */
export async function playEval(source: EvalSource, writer: RunWriter, backend: SandboxBackend, roles: Roles, o: EvalRunOptions): Promise<EvalResult> {
  if (!Number.isInteger(o.n) || o.n < minEvalPlays) throw new UserError(`--n must be at least ${minEvalPlays} plays per pair (the measurement rule), got ${o.n}`);
  const base = { runId: writer.manifest.runId, runSeed: o.seed, generation: 0, hint: false, agent: source.agent };
  const planned: Planned[] = source.pairs.flatMap((p) => Array.from({ length: o.n }, (_, t) => ({ group: p.pairId, stored: true, plan: { ...base, rolloutId: evalRolloutId(o.seed, { envId: p.env.id, userId: p.user.id }, t), pairId: p.pairId, trial: t, env: p.env, user: p.user } })));
  const evolved = o.userEffect && source.kind === 'run' ? evolvedUsers(source) : [];
  // n paired plays per environment (half of n left one user's effect of 0.1 at about one win: too few to tell).
  const perEnv = o.n;
  for (const { user, parent, envs } of evolved) {
    for (const who of [user, parent]) {
      for (const env of envs) {
        for (let t = 0; t < perEnv; t++) planned.push({ group: `ueff|${user.id}|${who.id}`, stored: false, plan: { ...base, rolloutId: evalUserEffectId(o.seed, user.id, env.id, t), pairId: `ueff-${user.id}`, trial: t, env, user: who } });
      }
    }
    // Satisfiable = one of the reference agent's plays with the hint meets the goal, as in the loop (one play alone
    // counts the reference agent's slips against the user).
    for (let t = 0; t < referencePlays; t++) planned.push({ group: `realism|${user.id}`, stored: false, plan: { ...base, agent: referenceAgent(), hint: true, rolloutId: t === 0 ? `eval-s${o.seed}-realism-${user.id}` : `eval-s${o.seed}-realism-${user.id}-t${t}`, pairId: `ueff-${user.id}`, trial: t, env: envs[0]!, user } });
  }
  const overlap = overlappingIds(new Set(planned.map((p) => p.plan.rolloutId)), source.runIds);
  if (overlap.length > 0) throw new UserError(`${overlap.length} eval rollout ids were used by the run (e.g. ${overlap[0]}); choose another --seed`);

  await writer.append({ type: 'generation.started', generation: 0, agentId: source.agent.id, pairs: source.pairs.map((p) => ({ pairId: p.pairId, envId: p.env.id, userId: p.user.id, source: 'replay' })) });
  const deps = { backend, roles, budgets: source.config.budgets, rewardWeights: source.config.reward, clock: systemClock, labels: { 'coevolve.run': writer.manifest.runId, 'coevolve.purpose': 'eval' } };
  const limit = pLimit(o.concurrency);
  let done = 0;
  const records = await Promise.all(planned.map(({ plan, stored }) => limit(async () => {
    if (stored) await writer.append({ type: 'rollout.started', generation: 0, rolloutId: plan.rolloutId, pairId: plan.pairId });
    const r = await playRollout(plan, deps);
    if (stored) {
      await writer.writeRollout(r);
      await writer.append({ type: 'rollout.finished', summary: summarizeRollout(r) });
    }
    o.onPlayed?.(++done, planned.length);
    return r;
  })));
  const byGroup = new Map<string, RolloutRecord[]>();
  planned.forEach((p, i) => byGroup.set(p.group, [...(byGroup.get(p.group) ?? []), records[i]!]));

  const pairs = source.pairs.map((p) => evalPair({ pairId: p.pairId, envId: p.env.id, userId: p.user.id, family: p.env.family, records: byGroup.get(p.pairId) ?? [], belief: source.beliefs?.get(p.pairId) ?? null }, source.config.band, source.agentAbility));
  const users = evolved.map(({ user, parent }) => {
    const child = byGroup.get(`ueff|${user.id}|${user.id}`) ?? [];
    const par = byGroup.get(`ueff|${user.id}|${parent.id}`) ?? [];
    const r = meanWithInterval(pairedDifferences(par, child));
    const satisfied = (byGroup.get(`realism|${user.id}`) ?? []).some((x) => verdictOf(x) === true);
    return { userId: user.id, parentId: parent.id, plays: r.n, vsParent: { mean: r.mean, ci: r.ci }, realismViolations: realismViolations(realismIndicators(child, satisfied)) };
  });
  const meanEffect = users.length ? meanWithInterval(users.map((u) => u.vsParent.mean)) : null;
  return {
    evalVersion, kind: 'eval',
    source: { kind: source.kind, runDir: source.runDir, runId: source.runId, generation: source.generation, paths: source.paths },
    agent: { id: source.agent.id, role: o.agentRole, from: source.agentFrom },
    seed: o.seed, n: o.n, band: { low: source.config.band.low, high: source.config.band.high },
    rolloutIds: { prefix: `eval-s${o.seed}-`, checkedAgainst: source.runIds.size, overlap: 0 },
    pairs,
    summary: evalSummary(pairs, source.config.band),
    userEffect: source.kind === 'run' && o.userEffect ? { users, mean: meanEffect } : null,
  };
}

const referencePlays = probationRules.referencePlays;

/** Users of the final archive with a parent in the run, each with up to two of its pairs' environments. */
function evolvedUsers(source: EvalSource): { user: UserProfile; parent: UserProfile; envs: EnvironmentSpec[] }[] {
  const out: { user: UserProfile; parent: UserProfile; envs: EnvironmentSpec[] }[] = [];
  const seen = new Set<string>();
  for (const p of source.pairs) {
    const parentId = p.user.lineage.parent;
    if (!parentId || seen.has(p.user.id)) continue;
    const parent = source.users.get(parentId);
    if (!parent) continue;
    seen.add(p.user.id);
    const envs = [...new Map(source.pairs.filter((q) => q.user.id === p.user.id).map((q) => [q.env.id, q.env])).values()].slice(0, 2);
    out.push({ user: p.user, parent, envs });
  }
  return out;
}

export { cooperativeReferenceUser };
export type { AgentConfig };
