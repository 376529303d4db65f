import type { ErrorKind, RolloutRecord } from '../rollout/trajectory.js';
import { cutShort, hasVerdict } from '../rollout/verdict.js';
import type { EnvironmentSpec } from '../spec/environment.js';
import type { RunConfig } from '../spec/run.js';
import type { UserProfile } from '../spec/user.js';
import { inBand } from './band.js';
import { passAtK, passHatK, reportedK } from './passK.js';
import type { PairStatsFull } from './pairStats.js';
import type { StoredGenerationMetrics } from './metricsSchema.js';
import { userRealism } from './userRealism.js';

/** The stored per-generation metrics: version-1 fields always, version-2 fields when recorded (see metricsSchema.ts). */
export type GenerationMetrics = StoredGenerationMetrics;

const mean = (xs: number[]): number => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);

export interface GenerationMetricsInput {
  index: number;
  config: Pick<RunConfig, 'band'>;
  records: RolloutRecord[];
  pairs: PairStatsFull[];
  /** The environments and users that were played this generation. */
  envs: EnvironmentSpec[];
  users: UserProfile[];
  archiveEnvs: EnvironmentSpec[];
  children: { proposed: number; accepted: number; inBandChildren: number; rejections: Record<string, number>; added: number; retired: number };
  agent: GenerationMetrics['agent'];
  durationMs: number;
}

/** Everything the report, the dashboard and the tree show about a generation; computed once, stored, never recomputed by viewers. */
export function generationMetrics(input: GenerationMetricsInput): GenerationMetrics {
  // Plays with an outcome only (`verdictOf`): an infrastructure error or a cut verification or rating is no play.
  const plain = input.records.filter((r) => !r.hint && hasVerdict(r));
  const { at, hat } = passRates(plain);
  const withHints = input.pairs.filter((p) => p.hintPlays > 0);
  return {
    index: input.index,
    rollouts: input.records.length,
    pairs: input.pairs.length,
    successRate: mean(plain.map((r) => (r.success ? 1 : 0))),
    verifierSuccessRate: mean(plain.map((r) => (r.rewards.verifier >= 0.999 ? 1 : 0))),
    passAtK: at,
    passHatK: hat,
    meanReward: mean(plain.map((r) => r.rewards.total)),
    rewardComponents: rewardComponents(plain),
    regret: mean(withHints.map((p) => p.regret)),
    regretPositiveShare: mean(withHints.map((p) => (p.regret > 0 ? 1 : 0))),
    meanDifficulty: mean(input.envs.map((e) => e.difficulty)),
    difficulty: difficulty(input),
    inBandShare: mean(input.pairs.map((p) => (inBand(p.successRate, input.config.band) ? 1 : 0))),
    frontierYield: frontierYield(input.children),
    rejections: input.children.rejections,
    diversity: diversity(input.archiveEnvs),
    archive: { size: input.archiveEnvs.length, added: input.children.added, retired: input.children.retired },
    users: userMeans(input.users, input.records),
    agent: input.agent,
    tokens: input.records.reduce((s, r) => s + r.usage.promptTokens + r.usage.completionTokens, 0),
    costUsd: input.records.reduce((s, r) => s + r.usage.costUsd, 0),
    errors: input.records.filter((r) => r.status === 'error').length,
    errorsByKind: errorsByKind(input.records),
    unfinished: input.records.filter(cutShort).length,
    truncated: input.records.filter((r) => r.status === 'truncated').length,
    durationMs: input.durationMs,
    pairsDetail: input.pairs,
  };
}

/** pass@k and pass^k for each reported k, averaged over the pairs of the plain (no hint, with an outcome) plays. */
function passRates(plain: RolloutRecord[]): { at: Record<number, number>; hat: Record<number, number> } {
  const byPair = new Map<string, RolloutRecord[]>();
  for (const r of plain) byPair.set(r.pairId, [...(byPair.get(r.pairId) ?? []), r]);
  const at: Record<number, number> = {};
  const hat: Record<number, number> = {};
  for (const k of reportedK) {
    const perPair = [...byPair.values()].map((rs) => ({ n: rs.length, c: rs.filter((r) => r.success).length }));
    at[k] = mean(perPair.map((p) => passAtK(p.n, p.c, k)));
    hat[k] = mean(perPair.map((p) => passHatK(p.n, p.c, k)));
  }
  return { at, hat };
}

function rewardComponents(plain: RolloutRecord[]): GenerationMetrics['rewardComponents'] {
  return {
    verifier: mean(plain.map((r) => r.rewards.verifier)),
    userGoal: mean(plain.map((r) => r.rewards.userGoal)),
    satisfaction: mean(plain.map((r) => r.rewards.satisfaction)),
    efficiency: mean(plain.map((r) => r.rewards.efficiency)),
    rubric: mean(plain.map((r) => r.rewards.rubric)),
  };
}

function difficulty(input: GenerationMetricsInput): GenerationMetrics['difficulty'] {
  const knobNames = new Set(input.envs.flatMap((e) => Object.keys(e.knobs)));
  const meanKnobs: Record<string, number> = {};
  for (const k of [...knobNames].sort()) meanKnobs[k] = mean(input.envs.map((e) => e.knobs[k] ?? 0));
  return {
    tooEasy: mean(input.pairs.map((p) => (p.class === 'too_easy' ? 1 : 0))),
    frontier: mean(input.pairs.map((p) => (p.class === 'frontier' ? 1 : 0))),
    tooHard: mean(input.pairs.map((p) => (p.class === 'too_hard' ? 1 : 0))),
    maxLevel: input.envs.reduce((m, e) => Math.max(m, e.difficulty), 0),
    meanKnobs,
  };
}

function frontierYield(children: GenerationMetricsInput['children']): GenerationMetrics['frontierYield'] {
  return {
    proposed: children.proposed,
    accepted: children.accepted,
    inBand: children.inBandChildren,
    share: children.proposed ? children.accepted / children.proposed : 0,
  };
}

function diversity(archiveEnvs: EnvironmentSpec[]): GenerationMetrics['diversity'] {
  const skillCounts = new Map<string, number>();
  for (const e of archiveEnvs) for (const s of e.skills) skillCounts.set(s, (skillCounts.get(s) ?? 0) + 1);
  const skillTotal = [...skillCounts.values()].reduce((a, b) => a + b, 0);
  const skillEntropy = skillTotal === 0 ? 0 : -[...skillCounts.values()].reduce((h, c) => h + (c / skillTotal) * Math.log2(c / skillTotal), 0);
  const niches = new Set(archiveEnvs.map((e) => `${e.family}/${Math.round(e.difficulty)}`));
  return { families: new Set(archiveEnvs.map((e) => e.family)).size, niches: niches.size, skillEntropy, archiveSize: archiveEnvs.length };
}

function userMeans(users: UserProfile[], records: RolloutRecord[]): GenerationMetrics['users'] {
  return {
    meanPatience: mean(users.map((u) => u.behavior.patience)),
    meanCooperativeness: mean(users.map((u) => u.behavior.cooperativeness)),
    meanAmbiguity: mean(users.map((u) => u.behavior.ambiguity)),
    onRequestShare: mean(users.map((u) => (u.behavior.disclosure === 'upfront' ? 0 : 1))),
    evolvedShare: mean(users.map((u) => (u.lineage.parent ? 1 : 0))),
    meanLineageGeneration: mean(users.map((u) => u.lineage.generation)),
    realism: userRealism(records),
  };
}

/** Infrastructure errors per kind; a record from before `errorKind` was written counts as internal. */
export function errorsByKind(records: readonly Pick<RolloutRecord, 'status' | 'errorKind'>[]): Partial<Record<ErrorKind, number>> {
  const out: Partial<Record<ErrorKind, number>> = {};
  for (const r of records) {
    if (r.status !== 'error') continue;
    const kind = r.errorKind ?? 'internal';
    out[kind] = (out[kind] ?? 0) + 1;
  }
  return out;
}
