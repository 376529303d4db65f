import type { PairClass } from '../metrics/band.js';
import type { PairStatsFull } from '../metrics/pairStats.js';
import type { EnvironmentSpec } from '../spec/environment.js';
import type { UserProfile } from '../spec/user.js';

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
  source: 'seed' | 'replay' | 'child';
}

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
}

/** The population under evolution. Specs are kept by id; every version is also in the run directory. */
export class Archive {
  readonly envs = new Map<string, EnvironmentSpec>();
  readonly users = new Map<string, UserProfile>();
  readonly pairs = new Map<string, PairEntry>();
  fresh: string[] = [];
  nextPairNumber = 0;

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

  activePairs(): PairEntry[] {
    return [...this.pairs.values()].filter((p) => !p.retired);
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
    };
  }

  static restore(snap: ArchiveSnapshot, loadEnv: (id: string) => EnvironmentSpec, loadUser: (id: string) => UserProfile): Archive {
    const a = new Archive();
    for (const id of snap.envIds) a.addEnv(loadEnv(id));
    for (const id of snap.userIds) a.addUser(loadUser(id));
    for (const p of snap.pairs) a.pairs.set(p.pairId, structuredClone(p));
    a.fresh = [...snap.fresh];
    a.nextPairNumber = snap.nextPairNumber;
    return a;
  }
}
