import { jStat } from 'jstat';

/**
 * The distribution functions the measurement needs, in one place (jstat underneath), with the edge cases the
 * library leaves to the caller handled here: empty evidence, degenerate parameters, probabilities at 0 or 1.
 */

/** P(X <= x) for X ~ Beta(a, b); a, b > 0. */
export function betaCdf(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  return clamp01(jStat.beta.cdf(x, a, b));
}

/** The p-quantile of Beta(a, b). */
export function betaQuantile(p: number, a: number, b: number): number {
  return clamp01(jStat.beta.inv(p, a, b));
}

/** The p-quantile of the standard normal. */
export function normalQuantile(p: number): number {
  return jStat.normal.inv(p, 0, 1);
}

/** The p-quantile of Student's t with `dof` degrees of freedom (normal when dof is large). */
export function studentTQuantile(p: number, dof: number): number {
  return dof >= 1000 ? normalQuantile(p) : jStat.studentt.inv(p, dof);
}

/** P(K <= k) for K ~ Binomial(n, p). */
export function binomialCdf(k: number, n: number, p: number): number {
  if (k < 0) return 0;
  if (k >= n) return 1;
  return clamp01(jStat.binomial.cdf(k, n, p));
}

/**
 * P(lo <= K <= hi) for K ~ BetaBinomial(n, a, b): the number of successes in n new plays when the success chance is
 * itself Beta(a, b), e.g. a posterior. a, b > 0.
 */
export function betaBinomialRange(lo: number, hi: number, n: number, a: number, b: number): number {
  let total = 0;
  for (let k = Math.max(0, lo); k <= Math.min(n, hi); k++) {
    total += Math.exp(jStat.combinationln(n, k) + jStat.betaln(k + a, n - k + b) - jStat.betaln(a, b));
  }
  return clamp01(total);
}

/** 95 % Wilson score interval of a proportion ([0, 1] when there are no trials). */
export function wilsonInterval(successes: number, trials: number, z = 1.959963984540054): [number, number] {
  if (trials <= 0) return [0, 1];
  const p = successes / trials;
  const z2 = z * z;
  const centre = (p + z2 / (2 * trials)) / (1 + z2 / trials);
  const half = (z * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials))) / (1 + z2 / trials);
  return [clamp01(centre - half), clamp01(centre + half)];
}

/**
 * Exact sign test on discordant paired outcomes (McNemar's exact test): with `wins` plays where only the first
 * succeeded and `losses` where only the second did, P(W >= wins) under "no difference" (one-sided), or twice the
 * smaller tail (two-sided). 1 when there is no discordant pair.
 */
export function signTest(wins: number, losses: number, sides: 'greater' | 'two-sided'): number {
  const n = wins + losses;
  if (n === 0) return 1;
  const upper = 1 - binomialCdf(wins - 1, n, 0.5);
  if (sides === 'greater') return clamp01(upper);
  const lower = binomialCdf(wins, n, 0.5);
  return clamp01(2 * Math.min(upper, lower));
}

export const logistic = (x: number): number => 1 / (1 + Math.exp(-x));
export const logit = (p: number): number => Math.log(p / (1 - p));

function clamp01(x: number): number {
  return Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
}
