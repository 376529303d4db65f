import type { Rng } from '../ports/rng.js';
import type { RunConfig } from '../spec/run.js';
import type { Archive, PairEntry } from './archive.js';
import { samplePlr } from './replay.js';

/**
 * Which pairs a generation plays: fresh children first (up to the non-replay share), PLR replay of played pairs for
 * the rest, and unplayed seeds when the archive is still young. Deterministic for a given archive and rng.
 */
export function planGeneration(archive: Archive, generation: number, config: RunConfig, rng: Rng): PairEntry[] {
  const n = config.population.pairsPerGeneration;
  const active = (p: PairEntry | undefined): p is PairEntry => p !== undefined && !p.retired;
  const fresh = archive.fresh.map((id) => archive.pairs.get(id)).filter(active);
  const played = archive.activePairs().filter((p) => p.lastPlayed >= 0);
  const replayTarget = Math.min(Math.round(n * config.population.replayShare), played.length);
  const chosen: PairEntry[] = fresh.slice(0, Math.max(0, n - replayTarget));
  const taken = new Set(chosen.map((p) => p.pairId));
  const replay = samplePlr(played.filter((p) => !taken.has(p.pairId)), n - chosen.length, generation, rng.fork('replay'), { staleness: config.population.stalenessMix });
  for (const p of replay) {
    chosen.push(p);
    taken.add(p.pairId);
  }
  if (chosen.length < n) {
    const unplayed = archive.activePairs().filter((p) => p.lastPlayed < 0 && !taken.has(p.pairId));
    for (const p of samplePlr(unplayed, n - chosen.length, generation, rng.fork('unplayed'), { staleness: 1 })) chosen.push(p);
  }
  return chosen.sort((a, b) => a.pairId.localeCompare(b.pairId));
}
