/**
 * How well a number the loop selected on (the fitted model's prediction, or a pair's pooled-evidence posterior)
 * foretells a pair's success on fresh plays: what `coevolve eval` reports next to the in-band share, so that a
 * selection rule can be judged by whether its inputs predict anything, not only by the share it ends with.
 */
export interface PredictionCheck {
  /** Pairs with a prediction and at least two fresh plays. */
  pairs: number;
  /** Mean (fresh success − prediction): + when the pairs turned out easier than predicted. */
  bias: number;
  /**
   * Root mean square of (true success − prediction): the observed mean square error less the binomial noise of the
   * fresh estimates, mean(p̂(1 − p̂) / (n − 1)), as for the archive's true spread. Equal to the true spread when the
   * prediction knows nothing but the mean.
   */
  rmsError: number;
  /**
   * Least-squares slope of fresh success on prediction: 1 when the prediction is calibrated, below 1 when it is
   * overconfident (its spread is wider than the outcomes'), 0 when it carries no information. Null when every
   * prediction is the same.
   */
  slope: number | null;
}

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
  const noise = mean(used.map((p) => (p.success * (1 - p.success)) / (p.plays - 1)));
  return {
    pairs: used.length,
    bias: my - mx,
    rmsError: Math.sqrt(Math.max(0, squared - noise)),
    slope: sxx > 1e-12 ? sxy / sxx : null,
  };
}
