import type { RewardComponents, RolloutRecord } from '../core/rollout/trajectory.js';
import type { EnvironmentSpec } from '../core/spec/environment.js';
import type { SplitName } from './splits.js';

/** What every exported rollout carries beside its messages, for trainers that filter or weight by it. */
export interface RolloutMetadata {
  rollout_id: string;
  run_id: string;
  split: SplitName;
  environment: { id: string; title?: string; family?: string; difficulty?: number; lineage_root: string; generation?: number; parent?: string | null; operator?: string | null };
  user: { id: string };
  agent: { id: string; role: string };
  generation: number;
  trial: number;
  hint: boolean;
  status: RolloutRecord['status'];
  /** How a truncated episode ended (turns, tokens, wall_clock, agent_timeout, context), as recorded. */
  truncation_reason?: string;
  /** A step after the episode that did not finish: the reward lacks what it would have given. */
  unfinished?: { step: string; reason: string; note: string };
  success: boolean;
  reward: RewardComponents;
  tags: string[];
  curation?: { verdict?: string; labels: string[] };
}

export interface MetadataContext {
  env: EnvironmentSpec | undefined;
  lineageRoot: string;
  split: SplitName;
  labels: string[];
  verdict?: string;
}

export function rolloutMetadata(r: RolloutRecord, ctx: MetadataContext): RolloutMetadata {
  const environment: RolloutMetadata['environment'] = { id: r.envId, lineage_root: ctx.lineageRoot };
  if (ctx.env) {
    environment.title = ctx.env.title;
    environment.family = ctx.env.family;
    environment.difficulty = ctx.env.difficulty;
    environment.generation = ctx.env.lineage.generation;
    environment.parent = ctx.env.lineage.parent;
    environment.operator = ctx.env.lineage.operator;
  }
  const meta: RolloutMetadata = {
    rollout_id: r.id,
    run_id: r.runId,
    split: ctx.split,
    environment,
    user: { id: r.userId },
    agent: { id: r.agentId, role: r.roles.agent },
    generation: r.generation,
    trial: r.trial,
    hint: r.hint,
    status: r.status,
    ...rolloutEnding(r),
    success: r.success,
    reward: r.rewards,
    tags: [...new Set([...r.tags, ...ctx.labels])],
  };
  if (ctx.verdict || ctx.labels.length > 0) meta.curation = ctx.verdict ? { verdict: ctx.verdict, labels: ctx.labels } : { labels: ctx.labels };
  return meta;
}

/**
 * What `status` alone does not say, next to it where a trainer reads it: the truncation reason and a step after the
 * episode that did not finish. Absent on records without them, so an older run exports as it did.
 */
function rolloutEnding(r: RolloutRecord): Pick<RolloutMetadata, 'truncation_reason' | 'unfinished'> {
  const ending: Pick<RolloutMetadata, 'truncation_reason' | 'unfinished'> = {};
  if (r.truncationReason) ending.truncation_reason = r.truncationReason;
  if (r.unfinished) ending.unfinished = { step: r.unfinished.step, reason: r.unfinished.reason, note: r.unfinished.note };
  return ending;
}

/** Content of a rollout independent of ids and timestamps: two rollouts with the same key are duplicates. */
export function rolloutContent(r: RolloutRecord): unknown {
  return r.steps.map((s) => ({
    source: s.source,
    message: s.message,
    calls: (s.tool_calls ?? []).map((c) => ({ name: c.function_name, args: c.arguments })),
    results: (s.observation?.results ?? []).map((o) => o.content),
  }));
}
