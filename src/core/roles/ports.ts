import type { Cancellation } from '../ports/cancellation.js';
import type { ModelSettings, TokenData, ToolDefinition, Usage } from '../ports/model.js';
import type { Rng } from '../ports/rng.js';
import type { AtifStep, CommandObservation, PromptNotes, StopReason, UserRating, VerifierOutcome } from '../rollout/trajectory.js';
import type { AgentConfig } from '../spec/agent.js';
import type { EnvironmentSpec } from '../spec/environment.js';
import type { UserProfile } from '../spec/user.js';
import type { OracleView } from './oracleView.js';
import type { RubricTag } from './rubric.js';

/** Every role says what it is; the UI shows built-in roles plainly as "built-in (not an LLM)". */
export interface RoleIdentity {
  readonly kind: 'builtin' | 'llm';
  /** e.g. "built-in heuristic agent (not an LLM)" or "llm local/qwen3-8b". */
  readonly label: string;
  /** LLM roles: the model and how it is asked, recorded in each rollout. */
  readonly settings?: ModelSettings;
}

// ---------------------------------------------------------------- agent

/**
 * What the agent may know of the task: never the verifier or the user's hidden facts; the oracle only for an agent
 * that declares `knowsOracle` (an offline stand-in for imported tasks), and then without the held-back values.
 */
export interface AgentTask {
  instruction: string;
  /** The task family is public (it names the kind of task); built-in agents use it to pick a procedure. */
  family: string;
  workdir: string;
  /** Present only in hint plays. */
  hint?: string;
  tools: ToolDefinition[];
  /** Only for agent roles with `knowsOracle`: the reference solution with every value the user holds back masked. */
  oracle?: OracleView;
}

export type AgentToolCall =
  | { id: string; name: 'run_command'; command: string }
  | { id: string; name: 'message_user'; text: string }
  | { id: string; name: 'submit'; summary: string }
  /** A call the engine could not understand; its error goes back to the model as the tool result. */
  | { id: string; name: string; invalid: string; rawArguments: string };

export interface AgentTurn {
  message: string | null;
  /** What a reasoning model thought before this turn; kept in the trajectory, never sent to the simulated user. */
  reasoning?: string;
  calls: AgentToolCall[];
  usage: Usage;
  modelName?: string;
  /** How this turn's prompt was made to fit: results cut, earlier turns left out (recorded on the step). */
  promptNotes?: PromptNotes;
  /** Token ids and logprobs of this turn, where the server sent them (kept in the rollout's token sidecar). */
  tokens?: TokenData;
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
  /** The engine hands this agent the masked oracle (`AgentTask.oracle`); say so in `label`. */
  readonly knowsOracle?: boolean;
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

/**
 * One single-step edit a designer or user evolver can make to a parent (a knob one step up or down, a behaviour
 * move). The controller chooses among the listed moves from its fitted model; the role executes the chosen one.
 */
export interface DesignMove {
  /** Stable name, recorded as the child's lineage operator, e.g. "harder:hiddenState" or "easier:more_disclosure". */
  id: string;
  direction: Direction;
  /** The knob or behaviour field it moves, when there is one. */
  knob?: string;
  /** From and to values of that knob, when known (shown in lineage and reports). */
  from?: number | string;
  to?: number | string;
  /**
   * Expected change of measured difficulty on the logit scale (+ harder), when the role has measured it (e.g. a
   * calibration bench) or states a design prior (the generic operators). The controller starts from it (else from
   * ±0.35 by `direction`) and learns each move's effect from the run's own outcomes.
   */
  expectedEffect?: number;
  /** Steps of this move in a row that this parent allows (holding back one fact is one step); absent: no known limit. */
  maxSteps?: number;
  description: string;
}

/** What every move-making call gets: the parent, the chosen move, the child's generation and a stream. */
export interface ApplyMoveInput<T> {
  parent: T;
  move: DesignMove;
  generation: number;
  rng: Rng;
  signal?: Cancellation;
}

export interface DesignerRole extends RoleIdentity {
  /** Proposes a child environment in a direction; the child has a new id and its lineage filled in. */
  propose(input: { parent: EnvironmentSpec; direction: Direction; knob?: string; stats: PairStats; generation: number; rng: Rng; signal?: Cancellation }): Promise<Proposal<EnvironmentSpec>>;
  /**
   * The single-step edits available for this parent, harder and easier alike (empty at every bound). Absent for
   * designers that can only propose (LLM designers): the controller then asks `propose` for a direction.
   */
  moves?(parent: EnvironmentSpec): DesignMove[];
  /** The child of one listed move: same content as the parent, that one change; lineage operator = move.id. */
  apply?(input: ApplyMoveInput<EnvironmentSpec>): Promise<Proposal<EnvironmentSpec>>;
}

export interface UserEvolverRole extends RoleIdentity {
  propose(input: { parent: UserProfile; direction: Direction; stats: PairStats; generation: number; rng: Rng; signal?: Cancellation }): Promise<Proposal<UserProfile>>;
  /**
   * Single-step behaviour moves available for this user inside the realism bounds; absent: `propose` by direction.
   * `agent` is the agent the child will be measured with: what a behaviour costs depends on how the agent asks.
   */
  moves?(parent: UserProfile, agent?: AgentConfig): DesignMove[];
  apply?(input: ApplyMoveInput<UserProfile>): Promise<Proposal<UserProfile>>;
}

export interface JudgeRole extends RoleIdentity {
  judge(input: { env: EnvironmentSpec; steps: AtifStep[]; verifier?: VerifierOutcome; signal?: Cancellation }): Promise<{ tags: RubricTag[]; usage: Usage }>;
}

export interface AgentEvolverRole extends RoleIdentity {
  /** A candidate agent from the current one and evidence (failed trajectories). Promotion is the controller's call. */
  propose(input: {
    current: AgentConfig;
    failures: { env: EnvironmentSpec; steps: AtifStep[]; reward: number }[];
    generation: number;
    rng: Rng;
    /** Operators of candidates already raced from `current` and not promoted (a role may avoid proposing them again). */
    tried?: string[];
    signal?: Cancellation;
  }): Promise<Proposal<AgentConfig>>;
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
