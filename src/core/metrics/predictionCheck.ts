import type { PredictionCheck } from './metricsSchema.js';
import { binomialNoise } from './summaries.js';

/**
 * How well a number the loop selected on (the fitted model's prediction, or a pair's pooled-evidence posterior)
 * foretells a pair's success on fresh plays: what `coevolve eval` reports next to the in-band share, so that a
 * selection rule can be judged by whether its inputs predict anything, not only by the share it ends with. The
 * fields are defined with `predictionCheckSchema`: bias, the rms error against the true success (the fresh
 * estimates' binomial noise removed, as for the archive's true spread) and the calibration slope (1 calibrated,
 * below 1 overconfident, 0 no information).
 */
export interface PredictedPair {
  plays: number;
  success: number;
  predicted?: number | null;
}

export function predictionCheck(pairs: PredictedPair[]): PredictionCheck | null {
  const used = pairs.filter((p): p is PredictedPair & { predicted: number } => typeof p.predicted === 'number' && p.plays > 1);
  if (used.length < 2) return null;
  const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
  const x = used.map((p) => p.predicted);
  const y = used.map((p) => p.success);
  const mx = mean(x);
  const my = mean(y);
  const sxx = x.reduce((s, v) => s + (v - mx) ** 2, 0);
  const sxy = x.reduce((s, v, i) => s + (v - mx) * (y[i]! - my), 0);
  const squared = mean(used.map((p) => (p.success - p.predicted) ** 2));
  return {
    pairs: used.length,
    bias: my - mx,
    rmsError: Math.sqrt(Math.max(0, squared - binomialNoise(used))),
    slope: sxx > 1e-12 ? sxy / sxx : null,
  };
}
