import type { RolloutSummary } from '../core/rollout/trajectory.js';
import type { EnvironmentSpec } from '../core/spec/environment.js';
import type { RunManifest } from '../core/ports/runStore.js';
import { curationKey, type CurationState } from '../store/curation.js';

/**
 * Which rollouts and environments a dataset takes. One definition for `coevolve export` and the editor's Dataset
 * view, so both show the same items for the same filters.
 */
export interface DatasetFilters {
  /** accepted: only what curation accepted; all: everything not rejected. */
  filter: 'accepted' | 'all';
  minReward?: number;
  /** Any of these tags (rollout tags, environment skills, curation labels). */
  tags?: string[];
  families?: string[];
  generations?: number[];
  /**
   * Hint plays: the agent saw a privileged hint the task does not give. Left out unless asked for, so a policy is
   * never trained to act on knowledge it will not have (and a hint play's success is never the task's).
   */
  includeHintPlays?: boolean;
  /** Rollouts of the unsandboxed process backend: left out unless asked for (nothing bounded what they did). */
  includeUnsandboxed?: boolean;
}

export interface SelectionContext {
  environments: ReadonlyMap<string, EnvironmentSpec>;
  curation: ReadonlyMap<string, CurationState>;
  /** Runs before the summary's `unsandboxed` mark: whether a rollout ran unsandboxed (e.g. from its record). */
  unsandboxed?: (s: RolloutSummary) => boolean;
}

/**
 * `SelectionContext.unsandboxed` for a run from what its index knows: a summary written before the `unsandboxed`
 * mark counts as unsandboxed when the run was configured for the process backend.
 */
export function unsandboxedByConfig(manifest: Pick<RunManifest, 'config'>): (s: RolloutSummary) => boolean {
  const process = manifest.config?.sandbox?.backend === 'process';
  return (s) => s.unsandboxed === undefined && process;
}

/** The reasons a dataset leaves a rollout out whatever the filters; the dataset card counts each. */
export const excludedByDefault = {
  error: 'infrastructure error',
  hint: 'hint play (the agent saw a privileged hint; --include-hint-plays to keep)',
  unsandboxed: 'unsandboxed process backend (--include-unsandboxed to keep)',
} as const;

/** Why a rollout is out of every dataset unless asked for (infrastructure error, hint play, unsandboxed), or undefined. */
export function defaultExclusion(s: RolloutSummary, f: Pick<DatasetFilters, 'includeHintPlays' | 'includeUnsandboxed'>, ctx: Pick<SelectionContext, 'unsandboxed'>): string | undefined {
  if (s.status === 'error') return excludedByDefault.error;
  if (s.hint && !f.includeHintPlays) return excludedByDefault.hint;
  if (!f.includeUnsandboxed && (s.unsandboxed === true || ctx.unsandboxed?.(s) === true)) return excludedByDefault.unsandboxed;
  return undefined;
}

/** Mean outcome of an environment's rollouts, for the reward filter on environments. */
export interface EnvironmentPlayStats {
  rollouts: number;
  successes: number;
  rewardSum: number;
}

const state = (ctx: SelectionContext, kind: 'rollout' | 'environment', id: string) => ctx.curation.get(curationKey({ kind, id }));

/** Why a rollout is left out, or undefined when it is in. */
export function rolloutExclusion(s: RolloutSummary, f: DatasetFilters, ctx: SelectionContext): string | undefined {
  const byDefault = defaultExclusion(s, f, ctx);
  if (byDefault) return byDefault;
  const cur = state(ctx, 'rollout', s.id);
  const envCur = state(ctx, 'environment', s.envId);
  if (cur?.verdict === 'rejected') return 'rejected by curation';
  if (envCur?.verdict === 'rejected') return 'environment rejected by curation';
  if (f.filter === 'accepted' && cur?.verdict !== 'accepted') return 'not accepted (use --filter all to include uncurated rollouts)';
  if (f.minReward !== undefined && !(s.reward >= f.minReward)) return `reward below ${f.minReward}`;
  if (f.generations?.length && !f.generations.includes(s.generation)) return 'other generation';
  const env = ctx.environments.get(s.envId);
  if (f.families?.length && !(env && f.families.includes(env.family))) return 'other family';
  if (f.tags?.length) {
    const have = new Set([...s.tags, ...(cur?.labels ?? []), ...(envCur?.labels ?? []), ...(env?.skills ?? [])]);
    if (!f.tags.some((t) => have.has(t))) return 'no matching tag';
  }
  return undefined;
}

/**
 * Whether a rollout's outcome counts toward its environment's play statistics in a Harbor export (the reward
 * filter and the index's success rate): the same default exclusions as for rollouts.
 */
export function countsTowardEnvironment(s: RolloutSummary, f: DatasetFilters, ctx: SelectionContext): boolean {
  return defaultExclusion(s, f, ctx) === undefined;
}

/** Why an environment is left out of a Harbor export, or undefined when it is in. */
export function environmentExclusion(env: EnvironmentSpec, stats: EnvironmentPlayStats | undefined, f: DatasetFilters, ctx: SelectionContext): string | undefined {
  const cur = state(ctx, 'environment', env.id);
  if (cur?.verdict === 'rejected') return 'rejected by curation';
  if (f.filter === 'accepted' && cur?.verdict !== 'accepted') return 'not accepted (use --filter all to include uncurated environments)';
  if (f.minReward !== undefined && !(stats && stats.rollouts > 0 && stats.rewardSum / stats.rollouts >= f.minReward)) return `mean reward below ${f.minReward} (or never played)`;
  if (f.generations?.length && !f.generations.includes(env.lineage.generation)) return 'other generation';
  if (f.families?.length && !f.families.includes(env.family)) return 'other family';
  if (f.tags?.length) {
    const have = new Set([...env.skills, ...(cur?.labels ?? [])]);
    if (!f.tags.some((t) => have.has(t))) return 'no matching tag';
  }
  return undefined;
}
