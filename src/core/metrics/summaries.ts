import { studentTQuantile } from './distributions.js';
import type { MeanSpread } from './metricsSchema.js';

/** Mean, standard deviation and standard error of the mean. */
export function meanSpread(xs: number[]): MeanSpread {
  const n = xs.length;
  if (n === 0) return { n: 0, mean: 0, sd: 0, se: 0 };
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  if (n < 2) return { n, mean, sd: 0, se: 0 };
  const sd = Math.sqrt(xs.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1));
  return { n, mean, sd, se: sd / Math.sqrt(n) };
}

/** Mean of paired differences with a 95 % t interval ([mean, mean] for fewer than two pairs). */
export function meanWithInterval(diffs: number[]): { n: number; mean: number; ci: [number, number] } {
  const s = meanSpread(diffs);
  if (s.n < 2) return { n: s.n, mean: s.mean, ci: [s.mean, s.mean] };
  const half = studentTQuantile(0.975, s.n - 1) * s.se;
  return { n: s.n, mean: s.mean, ci: [s.mean - half, s.mean + half] };
}

export const round4 = (x: number): number => Math.round(x * 1e4) / 1e4;

/**
 * The binomial part of the variance of success estimates from n plays each, mean(p^(1 - p^) / (n - 1)) (unbiased):
 * what an observed spread or squared error over pairs is to be reduced by. Every pair needs at least two plays.
 */
export function binomialNoise(pairs: { plays: number; success: number }[]): number {
  return pairs.reduce((t, p) => t + (p.success * (1 - p.success)) / (p.plays - 1), 0) / pairs.length;
}
