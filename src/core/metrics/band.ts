import type { RunConfig } from '../spec/run.js';

export type PairClass = 'too_easy' | 'frontier' | 'too_hard';

/** 1 inside [low, high], falling linearly to 0 over `ramp` outside (SPADE's plateau). */
export function bandPlateau(p: number, band: RunConfig['band']): number {
  if (p >= band.low && p <= band.high) return 1;
  const dist = p < band.low ? band.low - p : p - band.high;
  if (band.ramp <= 0) return 0;
  return Math.max(0, 1 - dist / band.ramp);
}

/** The band's centre: what steering aims a child at, and the point the archive cap measures distance from. */
export const bandCentre = (band: { low: number; high: number }): number => (band.low + band.high) / 2;

export function inBand(p: number, band: RunConfig['band']): boolean {
  return p >= band.low && p <= band.high;
}

/**
 * Too easy above the band's ramp region, too hard below it when hints do not help (no regret); a hard pair that
 * hints rescue is learnable and stays on the frontier.
 */
export function classifyPair(p: number, regret: number, band: RunConfig['band']): PairClass {
  if (p > Math.min(1, band.high + band.ramp / 2) || p >= 0.999) return 'too_easy';
  if (p < Math.max(0, band.low - band.ramp / 2) && regret < 0.05) return 'too_hard';
  return 'frontier';
}
