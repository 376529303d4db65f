import type { PairClass } from '../metrics/band.js';
import type { PairStatsFull } from '../metrics/pairStats.js';
import type { AgentConfig } from '../spec/agent.js';
import type { EnvironmentSpec } from '../spec/environment.js';
import type { UserProfile } from '../spec/user.js';
import type { ProbationEntry } from './userAdmission.js';

/** One (environment, user) pair the controller has played or plans to play, with its latest evaluation. */
export interface PairEntry {
  pairId: string;
  envId: string;
  userId: string;
  /** Generation of the last play; -1 when never played. */
  lastPlayed: number;
  /** PLR score: the latest fitness (learning signal). */
  score: number;
  lastStats?: Pick<PairStatsFull, 'successRate' | 'regret' | 'meanReward' | 'plays' | 'class' | 'fitness'>;
  /** Consecutive evaluations in the same out-of-band class, for retire/quarantine decisions. */
  streak: { class: PairClass; count: number };
  retired?: 'too_easy' | 'too_hard' | 'archive_full';
  /** Confidently too hard for the current agent: kept aside, not played, back when the model predicts it is reachable. */
  quarantined?: boolean;
  /** The agent the pair was quarantined for; it comes back only for another agent. */
  quarantinedFor?: string;
  source: 'seed' | 'replay' | 'child';
  /** No-hint plays of this pair by agent id: its archive plays, never the screening plays that admitted it. */
  plays?: Record<string, { successes: number; trials: number }>;
  /** The screening plays that admitted a child (in the fit's cells, not in `plays`: they decided its admission). */
  screening?: { agentId: string; successes: number; trials: number };
  /** Generation whose plays were this child's first measurement after admission. */
  firstMeasured?: number;
  /** How the pair came to be (a move id, "repair" for a new pairing, "seed"). */
  origin?: string;
}

/** The frozen held-out sets, drawn at run start: environment/user pairs never in the archive. */
export interface FrozenSets {
  source: 'generated' | 'seeds';
  test: { envId: string; userId: string }[];
  promotion: { envId: string; userId: string }[];
}

/** Environments generated for the frozen sets: never parents, never paired (with `source: seeds` the seeds are the archive). */
export const frozenEnvIds = (sets: FrozenSets | undefined): Set<string> => new Set(sets?.source === 'generated' ? [...sets.test, ...sets.promotion].map((p) => p.envId) : []);

/** What the controller keeps between generations beyond the pairs: outcomes, agents, held-out scores, the race. */
export interface Ledger {
  /** No-hint outcomes by agent|env|user (selection plays only; the test set never enters). */
  cells: Record<string, { successes: number; trials: number }>;
  /** Agents in the order they became current, with their parents. */
  agents: { id: string; parent: string | null }[];
  /** Candidates that were raced (for the ability fit: they played the promotion set). */
  candidates: { id: string; parent: string; change?: string }[];
  /** Per-play outcomes on the test set by agent id (the same rollout ids for every agent). */
  testPlays: Record<string, (boolean | null)[]>;
  /** Generation each agent's test plays were made in. */
  testMeasuredAt?: Record<string, number>;
  /** Per-play outcomes on promotion look L by agent id: `${agentId}|${look}`. */
  promotionPlays: Record<string, (boolean | null)[]>;
  /** A race of a snapshot written before races ran side by side (read as the only entry of `races`). */
  race?: { candidate: AgentConfig; change: string; looks: number; wins: number; losses: number };
  /** Candidates being raced against the current agent on the promotion set (agentEvolution.ts). */
  races?: Race[];
  /** Admitted user children with their paired effect, for the running mean. */
  userEffects: { userId: string; vsParent: number }[];
  frozen?: FrozenSets;
  /**
   * Children that were measured but not admitted (screened out, user children refused after their paired plays): the
   * fit keeps their plays, so every measured child teaches the model what its move does. Absent in older snapshots.
   */
  probes?: Probe[];
  /** What each tried move of a parent led to (`moveKey`), so the same child is not planned and refused again. */
  made?: Record<string, { id: string; verdict: string }>;
  /** User children whose admission test has not decided yet (userAdmission.ts). Absent in older snapshots. */
  userProbation?: ProbationEntry[];
}

/** One candidate's race against the incumbent: its discordant plays and both agents' plays, pooled over its looks. */
export interface Race {
  candidate: AgentConfig;
  change: string;
  /** Generation of its first look. */
  since: number;
  looks: number;
  wins: number;
  losses: number;
  /** The incumbent's and the candidate's plays over the race's looks (the same rollout ids). */
  incumbent: { successes: number; trials: number };
  challenger: { successes: number; trials: number };
}

/** A measured child outside the archive: enough for the fit (its parent and the move that made it). */
export interface Probe {
  kind: 'environment' | 'user';
  id: string;
  parent: string;
  operator: string;
  family?: string;
}

/** The key of one tried move: kind, parent id and the full operator ("easier:feedback+easier:feedback"). */
export const moveKey = (kind: 'environment' | 'user', parentId: string, operator: string): string => `${kind}|${parentId}|${operator}`;

export const emptyLedger = (): Ledger => ({ cells: {}, agents: [], candidates: [], testPlays: {}, promotionPlays: {}, userEffects: [], probes: [], made: {} });

/** The serialisable controller state at the end of a generation; resume starts from it. */
export interface ArchiveSnapshot {
  generation: number;
  pairs: PairEntry[];
  envIds: string[];
  userIds: string[];
  agentId: string;
  /** Pairs created by the last generation's mutations, played first in the next. */
  fresh: string[];
  nextPairNumber: number;
  /** Absent in snapshots of version-1 runs. */
  ledger?: Ledger;
}

/** The population under evolution. Specs are kept by id; every version is also in the run directory. */
export class Archive {
  readonly envs = new Map<string, EnvironmentSpec>();
  readonly users = new Map<string, UserProfile>();
  readonly pairs = new Map<string, PairEntry>();
  fresh: string[] = [];
  nextPairNumber = 0;
  ledger: Ledger = emptyLedger();

  addEnv(spec: EnvironmentSpec): void {
    this.envs.set(spec.id, spec);
  }

  addUser(user: UserProfile): void {
    this.users.set(user.id, user);
  }

  /** Adds a pair (idempotent on the env/user combination) and returns it. */
  addPair(envId: string, userId: string, source: PairEntry['source']): PairEntry {
    for (const p of this.pairs.values()) if (p.envId === envId && p.userId === userId) return p;
    const pairId = `p${String(this.nextPairNumber++).padStart(4, '0')}`;
    const entry: PairEntry = { pairId, envId, userId, lastPlayed: -1, score: 0, streak: { class: 'frontier', count: 0 }, source };
    this.pairs.set(pairId, entry);
    return entry;
  }

  /** Pairs in play: neither retired nor quarantined. */
  activePairs(): PairEntry[] {
    return [...this.pairs.values()].filter((p) => !p.retired && !p.quarantined);
  }

  /** Adds no-hint outcomes of a combination that is not (or not yet) a pair to the model's cells only. */
  addCell(agentId: string, envId: string, userId: string, successes: number, trials: number): void {
    if (trials <= 0) return;
    const cell = (this.ledger.cells[`${agentId}|${envId}|${userId}`] ??= { successes: 0, trials: 0 });
    cell.successes += successes;
    cell.trials += trials;
  }

  /** Adds no-hint outcomes of a pair's archive plays to the pair and to the model's cells. */
  addOutcomes(pair: PairEntry, agentId: string, successes: number, trials: number): void {
    if (trials <= 0) return;
    pair.plays ??= {};
    const own = (pair.plays[agentId] ??= { successes: 0, trials: 0 });
    own.successes += successes;
    own.trials += trials;
    this.addCell(agentId, pair.envId, pair.userId, successes, trials);
  }

  record(pairId: string, generation: number, stats: PairStatsFull): void {
    const p = this.pairs.get(pairId);
    if (!p) return;
    p.lastPlayed = generation;
    p.score = stats.fitness;
    p.lastStats = { successRate: stats.successRate, regret: stats.regret, meanReward: stats.meanReward, plays: stats.plays, class: stats.class, fitness: stats.fitness };
    p.streak = p.streak.class === stats.class ? { class: stats.class, count: p.streak.count + 1 } : { class: stats.class, count: 1 };
  }

  /** Environments still referenced by an active pair. */
  activeEnvs(): EnvironmentSpec[] {
    const ids = new Set(this.activePairs().map((p) => p.envId));
    return [...ids].map((id) => this.envs.get(id)).filter((e): e is EnvironmentSpec => e !== undefined);
  }

  snapshot(generation: number, agentId: string): ArchiveSnapshot {
    return {
      generation,
      pairs: [...this.pairs.values()].map((p) => structuredClone(p)),
      envIds: [...this.envs.keys()],
      userIds: [...this.users.keys()],
      agentId,
      fresh: [...this.fresh],
      nextPairNumber: this.nextPairNumber,
      ledger: structuredClone(this.ledger),
    };
  }

  static restore(snap: ArchiveSnapshot, loadEnv: (id: string) => EnvironmentSpec, loadUser: (id: string) => UserProfile): Archive {
    const a = new Archive();
    for (const id of snap.envIds) a.addEnv(loadEnv(id));
    for (const id of snap.userIds) a.addUser(loadUser(id));
    for (const p of snap.pairs) a.pairs.set(p.pairId, structuredClone(p));
    a.fresh = [...snap.fresh];
    a.nextPairNumber = snap.nextPairNumber;
    a.ledger = snap.ledger ? structuredClone(snap.ledger) : emptyLedger();
    return a;
  }
}
