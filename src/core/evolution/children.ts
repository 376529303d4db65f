import pLimit from 'p-limit';
import type { Cancellation } from '../ports/cancellation.js';
import type { Clock } from '../ports/clock.js';
import type { Rng } from '../ports/rng.js';
import type { SandboxBackend } from '../ports/sandbox.js';
import { zeroUsage } from '../ports/model.js';
import type { Direction, Proposal, Roles } from '../roles/ports.js';
import { playRollout } from '../rollout/engine.js';
import { agentConfigSchema, type AgentConfig } from '../spec/agent.js';
import { environmentSpecSchema, type EnvironmentSpec } from '../spec/environment.js';
import type { RunConfig } from '../spec/run.js';
import { userProfileSchema, type UserProfile } from '../spec/user.js';
import type { PairStatsFull } from '../metrics/pairStats.js';
import type { Archive, PairEntry } from './archive.js';
import { environmentFingerprint } from './fingerprint.js';
import { rolloutDepsOf, type GenerationContext } from './generationContext.js';
import { realismProblems } from './realism.js';
import { validateEnvironment } from './validateEnvironment.js';

export interface ChildOutcome {
  kind: 'environment' | 'user';
  id: string;
  parent: string;
  operator: string;
  accepted: boolean;
  /** Short machine-readable reason class ("oracle_failed", "duplicate", ...) and the human detail. */
  reason?: string;
  detail?: string;
  /** The parent pair's success rate was in the band, for frontier yield. */
  parentInBand: boolean;
}

/** Children are proposed and validated within a generation's context. */
export type ChildContext = GenerationContext;

/**
 * Parents in order of need: too easy first (they must get harder), then frontier pairs at or above the band (small
 * harder steps, ACCEL-style), then hard pairs that hints do not rescue (easier), then frontier pairs below the band
 * (hard but learnable: eased a little, and also kept and replayed as they are).
 */
export function chooseParents(stats: PairStatsFull[], count: number, band: { low: number }): { stats: PairStatsFull; direction: Direction }[] {
  const byId = (a: PairStatsFull, b: PairStatsFull): number => a.pairId.localeCompare(b.pairId);
  const easy = stats.filter((s) => s.class === 'too_easy').sort((a, b) => b.successRate - a.successRate || byId(a, b));
  const upper = stats.filter((s) => s.class === 'frontier' && s.successRate >= band.low).sort((a, b) => b.fitness - a.fitness || byId(a, b));
  const hard = stats.filter((s) => s.class === 'too_hard').sort((a, b) => a.successRate - b.successRate || byId(a, b));
  const lower = stats.filter((s) => s.class === 'frontier' && s.successRate < band.low).sort((a, b) => a.successRate - b.successRate || byId(a, b));
  const ordered = [
    ...easy.map((s) => ({ stats: s, direction: 'harder' as const })),
    ...upper.map((s) => ({ stats: s, direction: 'harder' as const })),
    ...hard.map((s) => ({ stats: s, direction: 'easier' as const })),
    ...lower.map((s) => ({ stats: s, direction: 'easier' as const })),
  ];
  const out: { stats: PairStatsFull; direction: Direction }[] = [];
  for (let i = 0; out.length < count && ordered.length > 0 && i < count * 2; i++) out.push(ordered[i % ordered.length]!);
  return out;
}

type Candidate =
  | { outcome: ChildOutcome; kind: 'environment'; spec?: EnvironmentSpec; userId: string }
  | { outcome: ChildOutcome; kind: 'user'; user?: UserProfile; envId: string };

/**
 * Proposes, validates and admits children; every rejection comes back with its reason. Proposals and their sandbox
 * validation run concurrently (up to the run's concurrency); admission then goes in parent order, so the archive,
 * pair ids and duplicate checks between siblings do not depend on which validation finished first.
 */
export async function evolvePopulation(ctx: ChildContext, stats: PairStatsFull[]): Promise<{ outcomes: ChildOutcome[]; fresh: PairEntry[] }> {
  const parents = chooseParents(stats, ctx.config.population.childrenPerGeneration, ctx.config.band);
  const fingerprints = new Set([...ctx.archive.envs.values()].map(environmentFingerprint));
  const limit = pLimit(ctx.config.concurrency);
  const planned = parents.map((parent, i) => ({ parent, rng: ctx.rng.fork(`child-${i}`) }));
  const candidates = await Promise.all(planned.map(({ parent, rng }) => limit(() => proposeChild(ctx, parent, rng, fingerprints))));

  const outcomes: ChildOutcome[] = [];
  const fresh: PairEntry[] = [];
  for (const c of candidates) {
    if (!c) continue;
    if (c.kind === 'environment' && c.spec) {
      const fp = environmentFingerprint(c.spec);
      if (ctx.archive.envs.has(c.spec.id) || fingerprints.has(fp)) {
        outcomes.push({ ...c.outcome, accepted: false, reason: 'duplicate', detail: 'same task as a sibling admitted before it' });
        continue;
      }
      fingerprints.add(fp);
      ctx.archive.addEnv(c.spec);
      fresh.push(ctx.archive.addPair(c.spec.id, c.userId, 'child'));
    } else if (c.kind === 'user' && c.user) {
      if (ctx.archive.users.has(c.user.id)) {
        outcomes.push({ ...c.outcome, accepted: false, reason: 'duplicate', detail: `id ${c.user.id} already in the archive` });
        continue;
      }
      ctx.archive.addUser(c.user);
      fresh.push(ctx.archive.addPair(c.envId, c.user.id, 'child'));
    }
    outcomes.push(c.outcome);
  }
  return { outcomes, fresh };
}

/** One parent's child: proposed by the designer or the user evolver, then validated; not yet admitted. */
async function proposeChild(ctx: ChildContext, parent: { stats: PairStatsFull; direction: Direction }, rng: Rng, fingerprints: ReadonlySet<string>): Promise<Candidate | undefined> {
  const env = ctx.archive.envs.get(parent.stats.envId);
  const user = ctx.archive.users.get(parent.stats.userId);
  if (!env || !user) return undefined;
  const parentInBand = parent.stats.class === 'frontier';
  const pairStats = { successRate: parent.stats.successRate, regret: parent.stats.regret, plays: parent.stats.plays, meanReward: parent.stats.meanReward };
  // Mostly environments; users evolve too, more slowly, and only toward harder: simulated users are already too
  // cooperative compared with real ones (Sim2Real), so a pair that is too hard is eased through its environment.
  const evolveUser = parent.direction === 'harder' && rng.chance(0.5);
  if (!evolveUser) {
    const proposal = await guarded(ctx, 'designer', () => ctx.roles.designer.propose({ parent: env, direction: parent.direction, stats: pairStats, generation: ctx.generation + 1, rng, ...(ctx.signal ? { signal: ctx.signal } : {}) }));
    if (!proposal.ok) {
      return { kind: 'environment', userId: user.id, outcome: { kind: 'environment', id: `${env.id}~${proposal.operator}`, parent: env.id, operator: proposal.operator, accepted: false, reason: 'designer_failed', detail: proposal.reason, parentInBand } };
    }
    const verdict = await admitEnvironment(ctx, proposal.child, fingerprints);
    const outcome: ChildOutcome = { kind: 'environment', id: proposal.child.id, parent: env.id, operator: proposal.operator, accepted: verdict.ok, ...(verdict.ok ? {} : { reason: verdict.reason, detail: verdict.detail }), parentInBand };
    return { kind: 'environment', userId: user.id, outcome, ...(verdict.ok ? { spec: verdict.spec } : {}) };
  }
  const proposal = await guarded(ctx, 'user evolver', () => ctx.roles.userEvolver.propose({ parent: user, direction: parent.direction, stats: pairStats, generation: ctx.generation + 1, rng, ...(ctx.signal ? { signal: ctx.signal } : {}) }));
  if (!proposal.ok) {
    return { kind: 'user', envId: env.id, outcome: { kind: 'user', id: `${user.id}~${proposal.operator}`, parent: user.id, operator: proposal.operator, accepted: false, reason: 'evolver_failed', detail: proposal.reason, parentInBand } };
  }
  const verdict = await admitUser(ctx, proposal.child, env);
  const outcome: ChildOutcome = { kind: 'user', id: proposal.child.id, parent: user.id, operator: proposal.operator, accepted: verdict.ok, ...(verdict.ok ? {} : { reason: verdict.reason, detail: verdict.detail }), parentInBand };
  return { kind: 'user', envId: env.id, outcome, ...(verdict.ok ? { user: verdict.user } : {}) };
}

/** A role that fails (a model that stays down past its retries) costs one child, never the run. */
async function guarded<T>(ctx: ChildContext, role: string, propose: () => Promise<Proposal<T>>): Promise<Proposal<T>> {
  try {
    return await propose();
  } catch (err) {
    if (ctx.signal?.aborted) throw err;
    return { ok: false, operator: `${role}:error`, reason: `${role} failed: ${err instanceof Error ? err.message : String(err)}`, usage: zeroUsage() };
  }
}

type Verdict<T> = ({ ok: true } & T) | { ok: false; reason: string; detail: string };

/** A child enters only if the spec is valid, new, its oracle passes and an empty agent fails. */
async function admitEnvironment(ctx: ChildContext, candidate: EnvironmentSpec, fingerprints: ReadonlySet<string>): Promise<Verdict<{ spec: EnvironmentSpec }>> {
  const parsed = environmentSpecSchema.safeParse(candidate);
  if (!parsed.success) return { ok: false, reason: 'invalid_spec', detail: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') };
  const spec = parsed.data;
  if (ctx.archive.envs.has(spec.id)) return { ok: false, reason: 'duplicate', detail: `id ${spec.id} already in the archive` };
  if (fingerprints.has(environmentFingerprint(spec))) return { ok: false, reason: 'duplicate', detail: 'same task content as an archived environment' };
  const v = await validateEnvironment(spec, ctx.backend, { labels: ctx.labels, ...(ctx.signal ? { signal: ctx.signal } : {}) });
  if (!v.oraclePassed) return { ok: false, reason: 'oracle_failed', detail: v.details };
  if (!v.emptyFailed) return { ok: false, reason: 'empty_agent_passed', detail: v.details };
  return { ok: true, spec };
}

/** The realism gate: knobs inside human-like bounds, and a reference play that knows the task still satisfies the user. */
async function admitUser(ctx: ChildContext, candidate: UserProfile, env: EnvironmentSpec): Promise<Verdict<{ user: UserProfile }>> {
  const parsed = userProfileSchema.safeParse(candidate);
  if (!parsed.success) return { ok: false, reason: 'invalid_spec', detail: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') };
  const user = parsed.data;
  if (ctx.archive.users.has(user.id)) return { ok: false, reason: 'duplicate', detail: `id ${user.id} already in the archive` };
  const problems = realismProblems(user);
  if (problems.length > 0) return { ok: false, reason: 'realism_bounds', detail: problems.join('; ') };
  const record = await playRollout(
    {
      runId: ctx.runId,
      runSeed: ctx.config.seed,
      rolloutId: `g${ctx.generation}-realism-${user.id}`,
      generation: ctx.generation,
      pairId: 'realism',
      trial: 0,
      hint: true,
      env,
      user,
      agent: referenceAgent(),
    },
    rolloutDepsOf(ctx),
  );
  if (!record.success) {
    return { ok: false, reason: 'realism_unsatisfiable', detail: `a reference play with the hint did not satisfy the user (${record.userRating?.stopReason ?? record.status}: ${record.userRating?.reason ?? record.error ?? ''})` };
  }
  return { ok: true, user };
}

/** The strongest agent we can field without a model: asks everything, explores, verifies, persists. */
export function referenceAgent(): AgentConfig {
  return agentConfigSchema.parse({
    apiVersion: 'coevolve/v1',
    kind: 'Agent',
    id: 'reference',
    genes: { askFirst: 1, questionBudget: 5, explore: 1, verify: 1, idiom: 'shell', persistence: 3 },
  });
}
