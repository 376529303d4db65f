import { betaCdf } from './distributions.js';
import type { evidenceClasses } from './metricsSchema.js';

export type EvidenceClass = (typeof evidenceClasses)[number];

/** The evidence rules (ARCHITECTURE.md, "Metric definitions"): the loop's selection, not the outside measurement. */
export const evidenceRules = {
  /** Posterior probability that makes a pair too easy, too hard or in band. */
  confidence: 0.8,
  /** Weight a play keeps per promotion of the agent after it. */
  discount: 0.5,
  /** Pseudo-plays of the model's prediction in the prior. */
  priorPlays: 2,
  /**
   * Own (discounted) plays a pair needs before it may be retired or quarantined. It was 4: one promotion halves every
   * older play, so most pairs of a 35-pair archive never had 4 and the confidently out-of-band ones stayed active
   * (bench:efficacy, seeds 2026 and 1: 55 % / 49 % in band by fresh eval with 4, 60 % / 51 % with 2 and 9 children).
   */
  minPlaysToDecide: 2,
} as const;

/** Plays of a pair by one agent version: `age` = promotions since that agent played (0 = the current agent). */
export interface AgedPlays {
  age: number;
  successes: number;
  trials: number;
}

export interface PairPosterior {
  alpha: number;
  beta: number;
  weightedPlays: number;
  mean: number;
  pInBand: number;
  pAbove: number;
  pBelow: number;
  class: EvidenceClass;
}

/**
 * Pools a pair's plays for the current agent: Beta(m·p̂ + Σ w·s, m·(1 − p̂) + Σ w·(n − s)) with w = discount^age and p̂
 * the model's prediction (0.5 without a model), then classifies with the stated confidence.
 */
export function pairPosterior(plays: AgedPlays[], prior: number, band: { low: number; high: number }, rules: typeof evidenceRules = evidenceRules): PairPosterior {
  const p0 = Math.min(0.98, Math.max(0.02, prior));
  let alpha = rules.priorPlays * p0;
  let beta = rules.priorPlays * (1 - p0);
  let weightedPlays = 0;
  for (const p of plays) {
    const w = Math.pow(rules.discount, Math.max(0, p.age));
    alpha += w * p.successes;
    beta += w * (p.trials - p.successes);
    weightedPlays += w * p.trials;
  }
  const pBelow = betaCdf(band.low, alpha, beta);
  const pAbove = 1 - betaCdf(band.high, alpha, beta);
  const pInBand = Math.max(0, 1 - pBelow - pAbove);
  const cls: EvidenceClass = pAbove >= rules.confidence ? 'too_easy' : pBelow >= rules.confidence ? 'too_hard' : pInBand >= rules.confidence ? 'in_band' : 'undecided';
  return { alpha, beta, weightedPlays, mean: alpha / (alpha + beta), pInBand, pAbove, pBelow, class: cls };
}

/** Screening refuses a child whose posterior is confidently out of band (too easy or too hard). */
export const screensOut = (p: PairPosterior): boolean => p.class === 'too_easy' || p.class === 'too_hard';

/** A screening's words, the same wherever a child is refused: "0/8 screening plays (model predicted 43%): too hard with probability 99%". */
export function screeningVerdict(screen: { successes: number; trials: number }, predicted: number, p: PairPosterior): string {
  return `${screen.successes}/${screen.trials} screening plays (model predicted ${Math.round(predicted * 100)}%): ${p.class.replace('_', ' ')} with probability ${Math.round(100 * Math.max(p.pAbove, p.pBelow))}%`;
}

/** How undecided a pair is (0 = certain of its class, 1 = nothing known): what replay should spend plays on. */
export function evidenceNeed(p: PairPosterior): number {
  return 1 - Math.max(p.pInBand, p.pAbove, p.pBelow);
}

/**
 * What replaying a pair is worth. While the archive is above its floor (a pair confidently out of band can leave it),
 * a pair without the own plays a decision needs is worth the chance that it is out of band: a pair the model predicts
 * out of band is played until its own evidence removes it (or finds it in band). Scored by indecision alone, such a
 * pair (the model's prior already leans out) lost its replay slots to undecided children and stayed active on the
 * model's word: in the demo-shaped synthetic world, 18.5 of 20 seeds stayed in archives of 48 pairs. At the floor
 * nothing can leave, and the score is how undecided the evidence is.
 */
export function replayScore(p: PairPosterior, removable: boolean, rules: typeof evidenceRules = evidenceRules): number {
  const need = evidenceNeed(p);
  return removable && p.weightedPlays < rules.minPlaysToDecide ? Math.max(need, 1 - p.pInBand) : need;
}
