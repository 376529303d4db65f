import type { Rng } from '../ports/rng.js';
import type { PairEntry } from './archive.js';

/**
 * Prioritised level replay (Jiang et al.): P = (1 − s)·P_score + s·P_staleness, with P_score ∝ (1/rank)^(1/β) over
 * the learning-signal score and P_staleness ∝ generations since last play. Draws without replacement.
 */
export function samplePlr(candidates: PairEntry[], count: number, generation: number, rng: Rng, opts: { staleness: number; beta?: number }): PairEntry[] {
  const beta = opts.beta ?? 0.3;
  const pool = [...candidates].sort((a, b) => b.score - a.score || a.pairId.localeCompare(b.pairId));
  const chosen: PairEntry[] = [];
  while (chosen.length < count && pool.length > 0) {
    const rankWeights = pool.map((_, i) => Math.pow(1 / (i + 1), 1 / beta));
    const stale = pool.map((p) => (p.lastPlayed < 0 ? generation + 1 : generation - p.lastPlayed));
    const rw = sum(rankWeights);
    const sw = sum(stale);
    const weights = pool.map((_, i) => (1 - opts.staleness) * ((rankWeights[i] ?? 0) / rw) + opts.staleness * (sw > 0 ? (stale[i] ?? 0) / sw : 1 / pool.length));
    const pick = drawIndex(weights, rng);
    chosen.push(pool[pick]!);
    pool.splice(pick, 1);
  }
  return chosen;
}

function sum(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}

function drawIndex(weights: number[], rng: Rng): number {
  const total = sum(weights);
  let x = rng.next() * total;
  for (let i = 0; i < weights.length; i++) {
    x -= weights[i] ?? 0;
    if (x < 0) return i;
  }
  return weights.length - 1;
}
