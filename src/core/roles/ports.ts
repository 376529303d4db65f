import type { Cancellation } from '../ports/cancellation.js';
import type { ToolDefinition, Usage } from '../ports/model.js';
import type { Rng } from '../ports/rng.js';
import type { AtifStep, CommandObservation, StopReason, UserRating, VerifierOutcome } from '../rollout/trajectory.js';
import type { AgentConfig } from '../spec/agent.js';
import type { EnvironmentSpec } from '../spec/environment.js';
import type { UserProfile } from '../spec/user.js';
import type { RubricTag } from './rubric.js';

/** Every role says what it is; the UI shows built-in roles plainly as "built-in (not an LLM)". */
export interface RoleIdentity {
  readonly kind: 'builtin' | 'llm';
  /** e.g. "built-in heuristic agent (not an LLM)" or "llm local/qwen3-8b". */
  readonly label: string;
}

// ---------------------------------------------------------------- agent

/** What the agent may know of the task: never the verifier, the oracle or the user's hidden facts. */
export interface AgentTask {
  instruction: string;
  /** The task family is public (it names the kind of task); built-in agents use it to pick a procedure. */
  family: string;
  workdir: string;
  /** Present only in hint plays. */
  hint?: string;
  tools: ToolDefinition[];
}

export type AgentToolCall =
  | { id: string; name: 'run_command'; command: string }
  | { id: string; name: 'message_user'; text: string }
  | { id: string; name: 'submit'; summary: string }
  /** A call the engine could not understand; its error goes back to the model as the tool result. */
  | { id: string; name: string; invalid: string; rawArguments: string };

export interface AgentTurn {
  message: string | null;
  calls: AgentToolCall[];
  usage: Usage;
  modelName?: string;
}

export interface ToolResult {
  callId: string;
  content: string;
  command?: CommandObservation;
}

export interface AgentEpisode {
  /**
   * The agent's next turn. `results` answers the calls of the previous turn (empty on the first turn);
   * `userMessage` is the user's opening message on the first turn.
   */
  next(input: { results: ToolResult[]; userMessage?: string; signal?: Cancellation }): Promise<AgentTurn>;
}

export interface AgentRole extends RoleIdentity {
  begin(input: { task: AgentTask; config: AgentConfig; rng: Rng }): AgentEpisode;
}

// ---------------------------------------------------------------- simulated user

export interface UserTurn {
  message: string;
  /** Set when the user ends the dialogue. */
  stop?: StopReason;
  disclosedFacts: string[];
  usage: Usage;
}

export interface UserEpisode {
  open(signal?: Cancellation): Promise<UserTurn>;
  reply(agentMessage: string, signal?: Cancellation): Promise<UserTurn>;
  /** End-of-episode rating; the user learns whether the task was done through the verifier outcome. */
  rate(input: { steps: AtifStep[]; submitted: boolean; verifier?: VerifierOutcome; signal?: Cancellation }): Promise<{ rating: UserRating; usage: Usage }>;
}

export interface UserRole extends RoleIdentity {
  begin(input: { env: EnvironmentSpec; profile: UserProfile; rng: Rng }): UserEpisode;
}

// ---------------------------------------------------------------- designer, user evolver, judge, agent evolver

export type Direction = 'harder' | 'easier';

export interface PairStats {
  successRate: number;
  regret: number;
  plays: number;
  meanReward: number;
}

export type Proposal<T> =
  | { ok: true; child: T; operator: string; usage: Usage; repairs?: number }
  | { ok: false; operator: string; reason: string; usage: Usage };

export interface DesignerRole extends RoleIdentity {
  /** Proposes a child environment; the child has a new id and its lineage filled in. */
  propose(input: { parent: EnvironmentSpec; direction: Direction; knob?: string; stats: PairStats; generation: number; rng: Rng; signal?: Cancellation }): Promise<Proposal<EnvironmentSpec>>;
}

export interface UserEvolverRole extends RoleIdentity {
  propose(input: { parent: UserProfile; direction: Direction; stats: PairStats; generation: number; rng: Rng; signal?: Cancellation }): Promise<Proposal<UserProfile>>;
}

export interface JudgeRole extends RoleIdentity {
  judge(input: { env: EnvironmentSpec; steps: AtifStep[]; verifier?: VerifierOutcome; signal?: Cancellation }): Promise<{ tags: RubricTag[]; usage: Usage }>;
}

export interface AgentEvolverRole extends RoleIdentity {
  /** A candidate agent from the current one and evidence (failed trajectories). Promotion is the controller's call. */
  propose(input: { current: AgentConfig; failures: { env: EnvironmentSpec; steps: AtifStep[]; reward: number }[]; generation: number; rng: Rng; signal?: Cancellation }): Promise<Proposal<AgentConfig>>;
}

/** The full cast of a run. */
export interface Roles {
  agent: AgentRole;
  user: UserRole;
  designer: DesignerRole;
  userEvolver: UserEvolverRole;
  judge: JudgeRole;
  agentEvolver: AgentEvolverRole;
}
