// Interval arithmetic for the calibration bench: a success rate with its Wilson interval, and a paired difference
// (same rollout ids, same content) with a normal interval on the per-play differences. An outcome is the play's
// verdict (src/core/rollout/verdict.ts): null for a play with no outcome (an infrastructure error, a verification cut
// short), which counts neither way, as in the loop's own evidence.

const z95 = 1.959964;

export interface Rate {
  n: number;
  successes: number;
  p: number;
  low: number;
  high: number;
}

/** Success rate with its 95 % Wilson score interval, over the plays with an outcome. */
export function rate(verdicts: readonly (boolean | null)[]): Rate {
  const outcomes = verdicts.filter((v): v is boolean => v !== null);
  const n = outcomes.length;
  const successes = outcomes.filter(Boolean).length;
  if (n === 0) return { n, successes, p: Number.NaN, low: Number.NaN, high: Number.NaN };
  const p = successes / n;
  const denom = 1 + (z95 * z95) / n;
  const centre = (p + (z95 * z95) / (2 * n)) / denom;
  const half = (z95 * Math.sqrt((p * (1 - p)) / n + (z95 * z95) / (4 * n * n))) / denom;
  return { n, successes, p, low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

export interface PairedDiff {
  n: number;
  /** Mean of b - a over the pairs. */
  mean: number;
  low: number;
  high: number;
  /** Pairs where exactly one side succeeded. */
  discordant: number;
}

/**
 * b minus a over paired outcomes (index i of both played with the same rollout id and content), 95 % normal interval;
 * a pair where either play has no outcome is left out.
 */
export function pairedDiff(a: readonly (boolean | null)[], b: readonly (boolean | null)[]): PairedDiff {
  if (a.length !== b.length) throw new Error(`paired outcomes differ in length (${a.length} vs ${b.length})`);
  const d = a.flatMap((x, i) => (x === null || b[i] === null ? [] : [Number(b[i]) - Number(x)]));
  const n = d.length;
  const mean = d.reduce((s, x) => s + x, 0) / Math.max(1, n);
  const variance = n > 1 ? d.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1) : 0;
  const half = n > 0 ? z95 * Math.sqrt(variance / n) : Number.NaN;
  return { n, mean, low: mean - half, high: mean + half, discordant: d.filter((x) => x !== 0).length };
}

export const fmtP = (x: number): string => (Number.isNaN(x) ? '  - ' : x.toFixed(2).replace(/^0/, '').replace(/^-0/, '-'));
export const fmtRate = (r: Rate): string => `${fmtP(r.p)} [${fmtP(r.low)},${fmtP(r.high)}]`;
export const fmtDiff = (d: PairedDiff): string => `${d.mean >= 0 ? '+' : ''}${fmtP(d.mean)} [${fmtP(d.low)},${fmtP(d.high)}]`;
