import { existsSync } from 'node:fs';
import type { GenerationMetrics } from '../core/metrics/generationMetrics.js';
import { runLayout } from '../store/layout.js';
import { readEnvironment, readGenerationMetrics, readUser, type RunIndex } from '../store/runReader.js';
import type { EnvInfo, UserInfo } from './liveRun.js';

/**
 * The files of a run a viewer reads beside its event log, cached once read: a generation's metrics (written once,
 * when the generation finished, which the tailed index says), and environment and user facts (written once, before
 * the spec plays). A file not written yet is asked for again later. `clear` forgets everything, for when the tail
 * starts over (the log shrank: the next writer repaired it).
 */
export class StoredFacts {
  private readonly metricsCache = new Map<number, GenerationMetrics>();
  private readonly envCache = new Map<string, EnvInfo | null>();
  private readonly userCache = new Map<string, UserInfo | null>();

  constructor(private readonly dir: string) {}

  clear(): void {
    this.metricsCache.clear();
    this.envCache.clear();
    this.userCache.clear();
  }

  /** Stored metrics of a generation the index shows finished; undefined before. Invalid metrics throw (not cached). */
  metrics(index: RunIndex, generation: number): GenerationMetrics | undefined {
    const hit = this.metricsCache.get(generation);
    if (hit) return hit;
    const g = index.generations.find((x) => x.index === generation);
    if (!g?.finished) return undefined;
    const m = readGenerationMetrics<GenerationMetrics>(this.dir, generation);
    if (m) this.metricsCache.set(generation, m);
    return m;
  }

  env(envId: string): EnvInfo | undefined {
    const hit = this.envCache.get(envId);
    if (hit !== undefined) return hit ?? undefined;
    if (!existsSync(runLayout.environment(this.dir, envId))) return undefined; // not written yet: ask again later
    try {
      const e = readEnvironment(this.dir, envId);
      const info: EnvInfo = { family: e.family, difficulty: e.difficulty, title: e.title, lineage: e.lineage };
      this.envCache.set(envId, info);
      return info;
    } catch {
      this.envCache.set(envId, null);
      return undefined;
    }
  }

  user(userId: string): UserInfo | undefined {
    const hit = this.userCache.get(userId);
    if (hit !== undefined) return hit ?? undefined;
    if (!existsSync(runLayout.user(this.dir, userId))) return undefined;
    try {
      const u = readUser(this.dir, userId);
      const info: UserInfo = { persona: { name: u.persona.name }, lineage: u.lineage };
      this.userCache.set(userId, info);
      return info;
    } catch {
      this.userCache.set(userId, null);
      return undefined;
    }
  }
}
