import type { AgentConfig } from '../spec/agent.js';
import type { EnvironmentSpec } from '../spec/environment.js';
import type { RunConfig } from '../spec/run.js';
import type { TrainerHookResult } from '../spec/trainerHookResult.js';
import type { UserProfile } from '../spec/user.js';
import type { RolloutRecord, RolloutSummary } from '../rollout/trajectory.js';

/** Version of the run-directory format. Readers refuse a newer one; see ARCHITECTURE.md. */
export const runFormatVersion = 1;

export interface RunManifest {
  formatVersion: number;
  runId: string;
  name: string;
  seed: number;
  toolVersion: string;
  startedAt: string;
  /** The resolved config (defaults applied) that produced this run. */
  config: RunConfig;
  /** Absolute path of the run config the run was started from, for re-runs. */
  configPath?: string;
  /** Labels of the role implementations, e.g. "builtin heuristic agent" or "llm:vllm/qwen3". */
  roles: Record<string, string>;
  /** "eval" for a directory written by `coevolve eval` (its result is `artifacts/eval.json`); absent for a run. */
  kind?: 'run' | 'eval';
}

export type ChildKind = 'environment' | 'user';

/** One planned play set: an (environment, user) pair and how many plays of each kind. */
export interface PairPlan {
  pairId: string;
  envId: string;
  userId: string;
  source: 'seed' | 'replay' | 'child';
}

/**
 * What an environment child's gate measured before it entered (or was refused): the verifier's reward after the oracle
 * and with no agent action (null when that sandbox failed), and its screening plays with the current agent.
 */
export interface ChildValidation {
  oracleReward: number | null;
  emptyReward: number | null;
  screening?: { successes: number; trials: number };
}

export type RunEventBody =
  | { type: 'run.started'; runId: string }
  | { type: 'run.resumed'; fromGeneration: number }
  | { type: 'generation.started'; generation: number; agentId: string; pairs: PairPlan[] }
  | { type: 'rollout.started'; generation: number; rolloutId: string; pairId: string }
  | { type: 'rollout.finished'; summary: RolloutSummary }
  /** `predicted`: a child's success for the current agent as the fitted model predicted it when the child was planned. */
  | { type: 'spec.added'; kind: ChildKind; id: string; parent: string | null; operator: string | null; generation: number; validation?: ChildValidation; predicted?: number }
  | { type: 'child.rejected'; kind: ChildKind; id: string; parent: string; operator: string; reason: string; generation: number; validation?: ChildValidation; predicted?: number }
  /**
   * A new pairing of an archived environment with an archived user: planned as one (`operator` "repair"), or a move
   * whose result the archive already held (`operator` the move, `parent` the environment it was applied to). Admitted
   * as `pairId` in the next generation's archive, or refused in this one.
   */
  | { type: 'pair.added'; pairId: string; envId: string; userId: string; parent: string; operator: string; generation: number; predicted: number; screening?: { successes: number; trials: number } }
  | { type: 'pair.rejected'; envId: string; userId: string; parent: string; operator: string; reason: string; generation: number; predicted: number; screening?: { successes: number; trials: number } }
  | { type: 'spec.retired'; kind: ChildKind; id: string; reason: 'too_easy' | 'too_hard' | 'archive_full'; generation: number }
  | { type: 'agent.updated'; generation: number; fromId: string; toId: string; change: string; promoted: boolean; heldOut?: { incumbent: number; candidate: number } }
  | { type: 'hook.finished'; generation: number; exitCode: number; durationMs: number; outputFile: string; result?: TrainerHookResult }
  | { type: 'generation.finished'; generation: number }
  | { type: 'run.finished'; status: 'completed' | 'stopped' | 'failed'; message?: string };

export type RunEvent = RunEventBody & { seq: number; at: string };

/**
 * What the engine writes. The store is the contract between the engine and every viewer: each method makes
 * its data durable before it resolves, so a kill at any point loses nothing that was recorded.
 */
export interface RunRecorder {
  readonly runDir: string;
  readonly manifest: RunManifest;
  append(event: RunEventBody): Promise<RunEvent>;
  writeRollout(record: RolloutRecord): Promise<void>;
  writeGenerationMetrics(generation: number, metrics: unknown): Promise<void>;
  writeEnvironment(spec: EnvironmentSpec): Promise<void>;
  writeUser(user: UserProfile): Promise<void>;
  writeAgent(agent: AgentConfig): Promise<void>;
  /** Arbitrary per-generation artefact (archive snapshot, hook output). */
  writeArtifact(relativePath: string, data: string | Buffer): Promise<string>;
  close(): Promise<void>;
}
