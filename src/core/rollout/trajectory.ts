import type { ModelSettings, Usage } from '../ports/model.js';
import type { CollectedLogs } from '../ports/sandbox.js';
import type { TokenTurn } from './tokenSidecar.js';

/** How an agent step's prompt was fitted to the model's context window (see contextFit.ts for the policy). */
export interface PromptNotes {
  contextWindow: number;
  /** The fitted prompt's size as estimated before sending. */
  estimatedPromptTokens: number;
  /** Results the model saw shortened: by call id, with the length before and after. */
  cutResults?: { callId: string; fromChars: number; toChars: number }[];
  /** Whole turns left out of this prompt, oldest first. */
  elidedTurns?: number;
}

/**
 * Steps follow ATIF field names (snake_case) so a rollout file's `steps` can be handed to ATIF tooling as is;
 * our additions live under `extra`.
 */
export interface AtifToolCall {
  tool_call_id: string;
  function_name: string;
  arguments: Record<string, unknown>;
}

export interface CommandObservation {
  exitCode: number;
  durationMs: number;
  timedOut: boolean;
  truncated: boolean;
  stderr: string;
}

export interface AtifObservationResult {
  source_call_id: string;
  content: string;
  /** Present when the call was a shell command. */
  command?: CommandObservation;
}

export interface AtifStep {
  step_id: number;
  timestamp: string;
  source: 'system' | 'user' | 'agent';
  message: string;
  /** ATIF: what a reasoning model thought before this step's message and calls (never shown to the simulated user). */
  reasoning_content?: string;
  model_name?: string;
  tool_calls?: AtifToolCall[];
  observation?: { results: AtifObservationResult[] };
  metrics?: { prompt_tokens: number; completion_tokens: number; cached_tokens: number; cost_usd: number };
  extra?: {
    /** Why the step is notable: an error parsing the model's tool call, a budget reached, a hint injected. */
    error?: string;
    hint?: boolean;
    /** Facts the user disclosed in this message (built-in user). */
    disclosedFacts?: string[];
    durationMs?: number;
    /** On a user step: the message_user call it answers (the same text is that call's observation). */
    replyTo?: string;
    /** On an agent step: how its prompt was fitted to the context window (results cut, turns left out). */
    context?: PromptNotes;
  };
}

export type StopReason = 'done' | 'gave_up' | 'out_of_scope' | 'out_of_patience' | 'agent_submitted';

export interface UserRating {
  goalMet: boolean;
  /** 1..5 */
  satisfaction: number;
  reason: string;
  stopReason: StopReason;
}

export interface VerifierOutcome {
  exitCode: number;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  durationMs: number;
  /** 0..1 */
  reward: number;
  /** Keys of reward.json when the verifier wrote one. */
  detail: Record<string, number>;
  /** Why the reward is 0 despite what the verifier printed or wrote (timed out, failing exit, unreadable file). */
  note?: string;
}

/** How the verifier saw the agent's work (see "The verifier's trust rule"). */
export interface VerificationRecord {
  mode: 'fresh' | 'in-place';
  /** Workspace entries left out by the sanitising transfer (or removed by the in-place sweep), with why. */
  dropped: { path: string; reason: string }[];
  droppedCount: number;
  /** The agent ran as root in a writable container (Harbor's model); absent for the default uid 65534. */
  agentUser?: 'root';
  /**
   * Set when the reward is weaker than the trust rule: with a root agent verified in place, the agent could have
   * replaced the image's own tools, so the reward is only as trustworthy as Harbor's. Says so in words.
   */
  trustNote?: string;
}

/** Infrastructure errors: excluded from success rates, counted per kind, left out of exports. */
export const errorKinds = ['sandbox-host', 'sandbox-start', 'model', 'internal'] as const;
export type ErrorKind = (typeof errorKinds)[number];

export interface RewardComponents {
  verifier: number;
  userGoal: number;
  satisfaction: number;
  efficiency: number;
  rubric: number;
  /** The configured scalar. */
  total: number;
}

export type RolloutStatus = 'terminated' | 'truncated' | 'error';

/** The steps that follow the agent's episode, in the order they run. */
export type AfterEpisodeStep = 'verification' | 'rating' | 'judging';

/**
 * Why a step after the agent's episode did not finish (the steps after it did not run either): the run's wall clock
 * ran out, or the rater's or judge's prompt could not fit its model's context window. The episode's ending is not
 * rewritten for it (ARCHITECTURE.md, "The engine"); `note` says in words what is missing and what that counts as.
 */
export interface UnfinishedStep {
  step: AfterEpisodeStep;
  reason: 'wall_clock' | 'context';
  note: string;
}

/**
 * What can end an episode `truncated`, as the engine writes it. No `cancelled`: a cancelled rollout throws and is
 * not recorded at all, so a resume plays it again. Readers still take any string (a newer writer's reason).
 */
export const truncationReasons = ['turns', 'tokens', 'wall_clock', 'agent_timeout', 'context'] as const;
export type TruncationReason = (typeof truncationReasons)[number];

export interface RolloutRecord {
  formatVersion: 1;
  id: string;
  runId: string;
  generation: number;
  pairId: string;
  envId: string;
  userId: string;
  agentId: string;
  trial: number;
  hint: boolean;
  seed: number;
  /** terminated: the task ended (submitted, user stopped); truncated: a budget ran out; error: an infrastructure fault. */
  status: RolloutStatus;
  /**
   * turns, tokens, wall_clock: the run's budgets (budgets.turns, .tokens, .wallClockSec); agent_timeout: the
   * environment's own agent timeout (sandbox.limits.agentTimeoutSec; recorded as wall_clock before 2026-12-07);
   * context: the conversation could not fit the model's context window even under the history policy.
   */
  truncationReason?: TruncationReason;
  /** A step after the agent's episode ended that did not finish; `status` and `truncationReason` still say how it ended. */
  unfinished?: UnfinishedStep;
  /** With status "error": what failed. */
  error?: string;
  errorKind?: ErrorKind;
  /**
   * The sandbox broke in a way its contents could have caused (after the agent acted): a failed rollout, counted
   * in success rates, reward 0. Phrased in sandbox paths.
   */
  fault?: string;
  verification?: VerificationRecord;
  /** What the agent left in /logs/agent and /logs/artifacts (Harbor's folders), when the backend has them. */
  logs?: CollectedLogs;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  roles: { agent: string; user: string; judge: string };
  /** unsandboxed: the process backend ran it on the host; exports leave it out unless asked. */
  /** shell: the environment asked for a shell mode; the mode that ran (a session without the channel ran stateless). */
  sandbox: { backend: string; host: string; image: string; unsandboxed?: boolean; shell?: 'session' | 'stateless' };
  steps: AtifStep[];
  verifier?: VerifierOutcome;
  userRating?: UserRating;
  rewards: RewardComponents;
  /** success = verifier passed and the user's goal was met. */
  success: boolean;
  tags: string[];
  usage: Usage;
  /** Wall time spent in sandbox calls and in model calls, for overhead accounting. */
  timing: { sandboxMs: number; modelMs: number };
  /** The models behind the LLM roles and how they were asked (sampling, extraBody), for reproducibility. */
  models?: Partial<Record<'agent' | 'user' | 'judge', ModelSettings>>;
  /**
   * Token-level data of the agent's turns, in memory only: the run writer moves it into the sidecar file next to
   * the rollout (`<id>.tokens.jsonl`) and leaves `tokenSidecar` in its place.
   */
  tokens?: TokenTurn[];
  /** Set in a stored rollout whose agent turns carry token data: the sidecar's file name and turn count. */
  tokenSidecar?: { file: string; turns: number };
}

/** What the event log and index keep of a rollout: enough for trees and tables without opening the file. */
export interface RolloutSummary {
  id: string;
  generation: number;
  pairId: string;
  envId: string;
  userId: string;
  trial: number;
  hint: boolean;
  status: RolloutStatus;
  success: boolean;
  reward: number;
  durationMs: number;
  costUsd: number;
  tokens: number;
  steps: number;
  tags: string[];
  firstErrorStep?: number;
  errorKind?: ErrorKind;
  /** A failed rollout whose sandbox broke in a way the agent could have caused. */
  fault?: boolean;
  /** Played by the process backend (no sandbox); absent in runs before this field and for sandboxed plays. */
  unsandboxed?: true;
  /** The step after the episode that did not finish (the record's `unfinished` without its note), so evidence read from the log counts it as the record does (verdict.ts). */
  unfinished?: Pick<UnfinishedStep, 'step' | 'reason'>;
}

/** Whether a rollout ran without a sandbox: the record's mark, or the process backend for records before it. */
export function isUnsandboxed(r: Pick<RolloutRecord, 'sandbox'>): boolean {
  return (r.sandbox as { unsandboxed?: unknown }).unsandboxed === true || r.sandbox.backend === 'process';
}

export function summarizeRollout(r: RolloutRecord): RolloutSummary {
  const firstError = r.steps.find((s) => s.extra?.error || s.observation?.results.some((o) => (o.command?.exitCode ?? 0) !== 0));
  const summary: RolloutSummary = {
    id: r.id,
    generation: r.generation,
    pairId: r.pairId,
    envId: r.envId,
    userId: r.userId,
    trial: r.trial,
    hint: r.hint,
    status: r.status,
    success: r.success,
    reward: r.rewards.total,
    durationMs: r.durationMs,
    costUsd: r.usage.costUsd,
    tokens: r.usage.promptTokens + r.usage.completionTokens,
    steps: r.steps.length,
    tags: r.tags,
  };
  if (firstError) summary.firstErrorStep = firstError.step_id;
  if (isUnsandboxed(r)) summary.unsandboxed = true;
  if (r.errorKind) summary.errorKind = r.errorKind;
  if (r.fault) summary.fault = true;
  if (r.unfinished) summary.unfinished = { step: r.unfinished.step, reason: r.unfinished.reason };
  return summary;
}
