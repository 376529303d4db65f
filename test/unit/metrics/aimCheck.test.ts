// The steering's aim checked by its children's screening plays: the mean prediction when the children were planned
// against what their screening plays won. Refused children count like admitted ones, or the refusal would bias it.
import assert from 'node:assert/strict';
import { aimCheck } from '../../../src/core/metrics/aimCheck.js';
import { wilsonInterval } from '../../../src/core/metrics/distributions.js';
import { aimCheckSchema } from '../../../src/core/metrics/metricsSchema.js';

describe('aimCheck', () => {
  it('compares the mean planned prediction with the screening plays, weighted by plays, with a Wilson interval', () => {
    const check = aimCheck([
      { predicted: 0.5, successes: 3, trials: 4 },
      { predicted: 0.4, successes: 4, trials: 4 },
      { predicted: 0.6, successes: 2, trials: 4 },
      { predicted: 0.2, successes: 1, trials: 8 },
    ])!;
    assert.equal(check.children, 4);
    assert.equal(check.plays, 20);
    assert.equal(check.predicted, (0.5 * 4 + 0.4 * 4 + 0.6 * 4 + 0.2 * 8) / 20);
    assert.equal(check.screened, 10 / 20);
    const [low, high] = wilsonInterval(10, 20);
    assert.ok(Math.abs(check.ci[0] - low) < 1e-4 && Math.abs(check.ci[1] - high) < 1e-4);
    assert.ok(aimCheckSchema.safeParse(check).success, 'the recorded form is what the schema says');
  });

  it('is null when nothing was screened (a child refused before its screening has no plays)', () => {
    assert.equal(aimCheck([]), null);
    assert.equal(aimCheck([{ predicted: 0.5, successes: 0, trials: 0 }]), null);
    assert.equal(aimCheck([{ predicted: 0.5, successes: 0, trials: 0 }, { predicted: 0.3, successes: 1, trials: 4 }])!.children, 1);
  });
});
