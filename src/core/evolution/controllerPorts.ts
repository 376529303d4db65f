import type { Cancellation } from '../ports/cancellation.js';
import type { Clock } from '../ports/clock.js';
import type { PairPlan, RunEvent, RunRecorder } from '../ports/runStore.js';
import type { SandboxBackend } from '../ports/sandbox.js';
import type { Roles } from '../roles/ports.js';
import type { RolloutRecord, RolloutSummary } from '../rollout/trajectory.js';
import type { AgentConfig } from '../spec/agent.js';
import type { EnvironmentSpec } from '../spec/environment.js';
import type { UserProfile } from '../spec/user.js';
import type { RunConfig } from '../spec/run.js';
import type { AgentModelSwitch, TrainerHookResult } from '../spec/trainerHookResult.js';
import type { GenerationMetrics } from '../metrics/generationMetrics.js';
import type { GenerationMetrics as RecordedGenerationMetrics } from '../metrics/metricsSchema.js';
import type { ArchiveSnapshot } from './archive.js';
import type { HeldOutSeeds } from './frontierSelection.js';

/** What the loop runs with: the config, where it records, the sandboxes and roles it plays with, and what it resumes. */
export interface ControllerDeps {
  config: RunConfig;
  recorder: RunRecorder;
  backend: SandboxBackend;
  roles: Roles;
  seeds: { environments: EnvironmentSpec[]; users: UserProfile[]; heldOut?: HeldOutSeeds };
  /** Present when resuming: what the run directory already holds. */
  history?: RunHistory;
  hook?: TrainerHookRunner;
  /** Puts the agent role on the model a trainer hook handed back, from the next rollout on (absent: not an LLM). */
  switchAgentModel?: (to: AgentModelSwitch) => void;
  clock: Clock;
  signal?: Cancellation;
  onProgress?: (p: ControllerProgress) => void;
}

export interface RunOutcome {
  status: 'completed' | 'stopped';
  generationsDone: number;
  metrics: RecordedGenerationMetrics[];
}

/** What a resumed run reads back from its own run directory (implemented by the store). */
export interface RunHistory {
  events: RunEvent[];
  snapshot(generation: number): ArchiveSnapshot | undefined;
  rollout(generation: number, id: string): RolloutRecord | undefined;
  environment(id: string): EnvironmentSpec;
  user(id: string): UserProfile;
  agent(id: string): AgentConfig;
}

/**
 * Runs the external trainer between generations (a process; implemented outside the core). The hook may write a
 * result at `resultPath` (the env names it COEVOLVE_HOOK_RESULT); the runner reads it only after a 0 exit and throws
 * a positioned error when it is not a valid result.
 */
export interface TrainerHookRunner {
  run(input: { command: string[]; env: Record<string, string>; timeoutSec: number; outputPath: string; resultPath: string }): Promise<{ exitCode: number; durationMs: number; result?: TrainerHookResult }>;
}

export type ControllerProgress =
  | { type: 'generation.started'; generation: number; generations: number; rollouts: number; alreadyDone: number }
  | { type: 'rollout.finished'; generation: number; done: number; total: number; summary: RolloutSummary }
  | { type: 'phase'; generation: number; phase: 'evolving population' | 'evolving agent' | 'trainer hook' }
  /** A measurement play (screening, promotion, test set, realism, user effect) finished; `done` counts the generation's so far. */
  | { type: 'measurement.finished'; generation: number; purpose: string; done: number }
  | { type: 'generation.finished'; generation: number; metrics: GenerationMetrics };

export type { PairPlan };
