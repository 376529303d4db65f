import type { Cancellation } from '../ports/cancellation.js';
import type { Clock } from '../ports/clock.js';
import type { Rng } from '../ports/rng.js';
import type { SandboxBackend } from '../ports/sandbox.js';
import type { Roles } from '../roles/ports.js';
import type { RolloutDeps } from '../rollout/engine.js';
import type { RunConfig } from '../spec/run.js';
import type { Archive } from './archive.js';

/** A generation number as four digits, the way rollout ids and artifact paths spell it (g0003). */
export const gen4 = (g: number): string => String(g).padStart(4, '0');

/** What every phase of a generation works with: playing, evolving the population, evolving the agent. */
export interface GenerationContext {
  generation: number;
  config: RunConfig;
  archive: Archive;
  roles: Roles;
  backend: SandboxBackend;
  clock: Clock;
  /** The phase's own random stream (forked from the generation's by purpose). */
  rng: Rng;
  labels: Record<string, string>;
  runId: string;
  signal?: Cancellation;
  /** Ids of the generation's measurement plays (held-out, screening, realism, user effect), written to artifacts/ids/. */
  playedIds?: string[];
  /**
   * Told after each measurement play finishes: the phases after play (screening children, the promotion race, user
   * looks) play hundreds of rollouts and a piped log would otherwise say nothing for minutes.
   */
  onMeasured?: (purpose: string) => void;
}

/** The rollout engine's dependencies for any play of this generation (plain, validation, realism, held-out). */
export function rolloutDepsOf(ctx: GenerationContext, extraLabels: Record<string, string> = {}): RolloutDeps {
  return {
    backend: ctx.backend,
    roles: ctx.roles,
    budgets: ctx.config.budgets,
    rewardWeights: ctx.config.reward,
    clock: ctx.clock,
    labels: { ...ctx.labels, ...extraLabels },
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  };
}
