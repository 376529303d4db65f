import { bandCentre } from './band.js';
import { hashString } from '../ports/rng.js';
import type { RolloutRecord } from '../rollout/trajectory.js';
import { cutShort, hasVerdict } from '../rollout/verdict.js';
import { betaBinomialRange, binomialCdf, logit, wilsonInterval } from './distributions.js';
import { evalResultVersion, type EvalPair, type EvalResult } from './metricsSchema.js';
import { predictionCheck } from './predictionCheck.js';
import { binomialNoise, meanSpread } from './summaries.js';

/** The rule of `coevolve eval`: at least this many fresh plays per pair (ARCHITECTURE.md, "Measurement rules"). */
export const minEvalPlays = 20;

/**
 * Fresh rollout ids of an eval: a namespace no run uses (run ids start with "g", "test-" or "promo-"). They follow the
 * pair's environment and user, not its pair id: a pair id is a counter, so admitting one pair renumbered every later
 * one and gave it other plays, and two runs differing by one pair read differently on pairs they share. Ids longer
 * than a rollout file name allows use a hash of the two.
 */
export function evalRolloutId(seed: number, pair: { envId: string; userId: string }, trial: number): string {
  const combo = `${pair.envId}.${pair.userId}`;
  const key = combo.length <= 160 ? combo : `h${hashString(combo).toString(16)}-${hashString(`${pair.userId}\u0001${pair.envId}`).toString(16)}`;
  return `eval-s${seed}-${key}-t${trial}`;
}
export const evalUserEffectId = (seed: number, userId: string, envId: string, trial: number): string => `eval-s${seed}-ueff-${userId}-${envId}-t${trial}`;

/** Ids that an eval would reuse from the run: must be empty. */
export function overlappingIds(evalIds: Iterable<string>, runIds: ReadonlySet<string>): string[] {
  return [...evalIds].filter((id) => runIds.has(id));
}

export interface EvalPairInput {
  pairId: string;
  envId: string;
  userId: string;
  family: string;
  records: RolloutRecord[];
  /** What the run believed of the pair for this agent, when the eval plays an agent the run fitted. */
  belief?: { predicted: number; posteriorMean: number } | null;
}

/** One pair's figures from its plays: success with its Wilson interval, in band by the point estimate, difficulty. */
export function evalPair(input: EvalPairInput, band: { low: number; high: number }, agentAbility: number | null): EvalPair {
  const played = input.records.filter(hasVerdict);
  const successes = played.filter((r) => r.success).length;
  const plays = played.length;
  const success = plays ? successes / plays : 0;
  const difficulty = -logit((successes + 0.5) / (plays + 1));
  return {
    pairId: input.pairId, envId: input.envId, userId: input.userId, family: input.family,
    plays, successes, success, ci: wilsonInterval(successes, plays),
    inBand: plays > 0 && success >= band.low && success <= band.high,
    difficulty,
    runScaleDifficulty: agentAbility === null ? null : agentAbility + difficulty,
    predicted: input.belief?.predicted ?? null,
    posteriorMean: input.belief?.posteriorMean ?? null,
    errors: input.records.filter((r) => r.status === 'error').length,
    unfinished: input.records.filter(cutShort).length,
  };
}

export function evalSummary(pairs: EvalPair[], band: { low: number; high: number }): EvalResult['summary'] {
  const centre = bandCentre(band);
  const mean = (xs: number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  const onRunScale = pairs.map((p) => p.runScaleDifficulty).filter((x): x is number => x !== null);
  return {
    pairs: pairs.length,
    inBandShare: mean(pairs.map((p) => (p.inBand ? 1 : 0))),
    meanAbsDistance: mean(pairs.map((p) => Math.abs(p.success - centre))),
    meanSuccess: mean(pairs.map((p) => p.success)),
    difficulty: meanSpread(pairs.map((p) => p.difficulty)),
    runScaleDifficulty: onRunScale.length === pairs.length && pairs.length > 0 ? meanSpread(onRunScale) : null,
    inBandRedrawSd: inBandRedrawSd(pairs, band),
    trueSpread: trueSpread(pairs),
    inBandExpected: inBandExpected(pairs, band),
    modelCheck: predictionCheck(pairs),
    evidenceCheck: predictionCheck(pairs.map((p) => ({ ...p, predicted: p.posteriorMean }))),
  };
}

/**
 * How widely the pairs' true success spreads: the observed variance of their estimates less its binomial part,
 * var(p^) - mean(p^(1 - p^)) / (n - 1) (unbiased), as an sd; null with fewer than two pairs of two plays. What the
 * in-band share can reach depends on it: at n = 20 an archive centred on 0.5 reads 74 % in band with no spread,
 * about 60 % with 0.09 and 51 % with 0.14.
 */
export function trueSpread(pairs: Pick<EvalPair, 'plays' | 'success'>[]): number | null {
  const played = pairs.filter((p) => p.plays > 1);
  if (played.length < 2) return null;
  const m = played.reduce((t, p) => t + p.success, 0) / played.length;
  const observed = played.reduce((t, p) => t + (p.success - m) ** 2, 0) / (played.length - 1);
  const noise = binomialNoise(played);
  return Math.sqrt(Math.max(0, observed - noise));
}

/**
 * How far the in-band share would move on another draw of the same number of fresh plays: its standard deviation
 * when each pair's plays are drawn again from its point estimate, sqrt(sum q(1 - q)) / pairs with q the binomial
 * chance that the pair's estimate lands in the band. On 40 pairs near the band at n = 20 it is about 0.08: two draws
 * of the same archive read 50 % and 59 % (bench:efficacy), and one figure cannot tell them apart.
 */
export function inBandRedrawSd(pairs: Pick<EvalPair, 'plays' | 'success'>[], band: { low: number; high: number }): number {
  const played = pairs.filter((p) => p.plays > 0);
  if (played.length === 0) return 0;
  let variance = 0;
  for (const p of played) {
    const q = binomialInBand(p.plays, p.success, band);
    variance += q * (1 - q);
  }
  return Math.sqrt(variance) / pairs.length;
}

/**
 * The in-band share another draw of the same number of fresh plays would read on average. Each pair's success is
 * shrunk toward the archive's (empirical Bayes: a beta prior with the pairs' mean success and true spread, fitted by
 * moments), and q is the chance that its next n plays land in the band (beta-binomial). Plugging each pair's own
 * estimate in instead reads low, as the estimates' noise carries pairs out of the band; the share one draw reads
 * scatters around this by about inBandRedrawSd. Null with fewer than two pairs of two plays.
 */
export function inBandExpected(pairs: Pick<EvalPair, 'plays' | 'successes' | 'success'>[], band: { low: number; high: number }): number | null {
  const spread = trueSpread(pairs);
  const played = pairs.filter((p) => p.plays > 0);
  if (spread === null || played.length === 0) return null;
  const m = played.reduce((t, p) => t + p.success, 0) / played.length;
  // Beta(m c, (1 - m) c) has mean m and variance m(1 - m) / (c + 1). No spread left (or every pair at 0 or 1) means
  // every pair is at m; a spread wider than any beta with mean m allows gets the flattest prior kept (c = 0.5).
  const pooled = spread === 0 || m <= 0 || m >= 1;
  const c = pooled ? 0 : Math.max(0.5, (m * (1 - m)) / spread ** 2 - 1);
  const chance = (p: (typeof played)[number]): number => {
    if (pooled) return binomialInBand(p.plays, m, band);
    const { lo, hi } = bandCounts(p.plays, band);
    return hi < lo ? 0 : betaBinomialRange(lo, hi, p.plays, m * c + p.successes, (1 - m) * c + p.plays - p.successes);
  };
  return played.reduce((t, p) => t + chance(p), 0) / pairs.length;
}

/** The success counts out of n plays whose share lies in the band (edges in). */
function bandCounts(plays: number, band: { low: number; high: number }): { lo: number; hi: number } {
  return { lo: Math.ceil(band.low * plays - 1e-9), hi: Math.floor(band.high * plays + 1e-9) };
}

/** The chance that n plays at success p give a share in the band. */
function binomialInBand(plays: number, p: number, band: { low: number; high: number }): number {
  const { lo, hi } = bandCounts(plays, band);
  return hi < lo ? 0 : binomialCdf(hi, plays, p) - binomialCdf(lo - 1, plays, p);
}

export const evalVersion = evalResultVersion;
