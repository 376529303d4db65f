// predictionCheck against pairs of known true success: fresh plays are drawn from the truth, so the check must tell
// a calibrated prediction, an overconfident one and one that knows nothing apart, and remove the binomial noise.
import assert from 'node:assert/strict';
import { createRng } from '../../../src/core/ports/rng.js';
import { predictionCheck } from '../../../src/core/metrics/predictionCheck.js';

const n = 20;
const rng = createRng('prediction-check');
/** 400 pairs, true success spread over 0.2-0.8, each played n times. */
const truths = Array.from({ length: 400 }, () => 0.2 + 0.6 * rng.next());
const fresh = truths.map((p) => {
  let s = 0;
  for (let i = 0; i < n; i++) s += rng.next() < p ? 1 : 0;
  return s / n;
});
const pairs = (predict: (truth: number) => number) => truths.map((t, i) => ({ plays: n, success: fresh[i]!, predicted: predict(t) }));

describe('predictionCheck: does what the loop selected on foretell fresh plays', () => {
  it('a prediction equal to the truth: slope near 1, error near 0 once the binomial noise is removed', () => {
    const c = predictionCheck(pairs((t) => t))!;
    assert.equal(c.pairs, 400);
    assert.ok(Math.abs(c.slope! - 1) < 0.1, `slope ${c.slope}`);
    assert.ok(c.rmsError < 0.03, `rms ${c.rmsError}`);
    assert.ok(Math.abs(c.bias) < 0.02, `bias ${c.bias}`);
  });
  it('an overconfident prediction (twice the truth\'s distance from 0.5): slope near 0.5', () => {
    const c = predictionCheck(pairs((t) => Math.min(1, Math.max(0, 0.5 + 2 * (t - 0.5)))))!;
    assert.ok(c.slope! > 0.4 && c.slope! < 0.6, `slope ${c.slope}`);
    assert.ok(c.rmsError > 0.1, `rms ${c.rmsError}`);
  });
  it('a prediction that knows nothing (drawn apart from the truth): slope near 0, error at least the true spread', () => {
    const c = predictionCheck(pairs(() => 0.2 + 0.6 * rng.next()))!;
    assert.ok(Math.abs(c.slope!) < 0.2, `slope ${c.slope}`);
    const spread = Math.sqrt(truths.reduce((s, t) => s + (t - 0.5) ** 2, 0) / truths.length);
    assert.ok(c.rmsError > spread * 0.9, `rms ${c.rmsError} vs spread ${spread}`);
  });
  it('a biased prediction shows its bias; no slope when every prediction is the same; null without predictions', () => {
    assert.ok(Math.abs(predictionCheck(pairs((t) => t - 0.1))!.bias - 0.1) < 0.02);
    assert.equal(predictionCheck(pairs(() => 0.5))!.slope, null);
    assert.equal(predictionCheck(truths.map((_, i) => ({ plays: n, success: fresh[i]!, predicted: null }))), null);
    assert.equal(predictionCheck([{ plays: 1, success: 1, predicted: 0.5 }, { plays: 1, success: 0, predicted: 0.5 }]), null);
  });
});
