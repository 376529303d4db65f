import type { Rng } from '../ports/rng.js';
import type { RunConfig } from '../spec/run.js';
import type { Archive, PairEntry } from './archive.js';
import { samplePlr } from './replay.js';

/**
 * Which pairs a generation plays: fresh children first (up to the non-replay share), then PLR replay over every other
 * active pair, played or not: an unplayed seed has the most undecided evidence and the most staleness, so it is
 * measured (and can be quarantined or eased) instead of being left for `coevolve eval` to meet first. In the first
 * generation nothing is played yet and every pair is drawn by staleness alone. Deterministic for a given archive and rng.
 */
export function planGeneration(archive: Archive, generation: number, config: RunConfig, rng: Rng): PairEntry[] {
  const n = config.population.pairsPerGeneration;
  const active = (p: PairEntry | undefined): p is PairEntry => p !== undefined && !p.retired && !p.quarantined;
  const fresh = archive.fresh.map((id) => archive.pairs.get(id)).filter(active);
  const others = (taken: Set<string>): PairEntry[] => archive.activePairs().filter((p) => !taken.has(p.pairId));
  const replayTarget = Math.min(Math.round(n * config.population.replayShare), others(new Set(fresh.map((p) => p.pairId))).length);
  const chosen: PairEntry[] = fresh.slice(0, Math.max(0, n - replayTarget));
  const taken = new Set(chosen.map((p) => p.pairId));
  const anyPlayed = archive.activePairs().some((p) => p.lastPlayed >= 0);
  for (const p of samplePlr(others(taken), n - chosen.length, generation, rng.fork(anyPlayed ? 'replay' : 'unplayed'), { staleness: anyPlayed ? config.population.stalenessMix : 1 })) chosen.push(p);
  return chosen.sort((a, b) => a.pairId.localeCompare(b.pairId));
}
