// The steering's aim checked by its children's screening plays: the mean prediction when the children were planned
// against what their screening plays won. Refused children count like admitted ones, or the refusal would bias it.
import assert from 'node:assert/strict';
import { aimByMove, aimCheck } from '../../../src/core/metrics/aimCheck.js';
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

  it('splits by move: steps of one move pool, two moves make their own row, most plays first, unscreened left out', () => {
    const rows = aimByMove([
      { operator: 'harder:horizon', predicted: 0.5, successes: 3, trials: 4 },
      { operator: 'harder:horizon+harder:horizon+harder:horizon', predicted: 0.4, successes: 4, trials: 4 },
      { operator: 'easier:feedback', predicted: 0.5, successes: 2, trials: 4 },
      { operator: 'harder:horizon+harder:feedback', predicted: 0.6, successes: 0, trials: 4 },
      { operator: 'harder:hiddenState', predicted: 0.5, successes: 0, trials: 0 },
    ]);
    assert.deepEqual(rows.map((r) => [r.move, r.children, r.steps, r.plays, r.predicted, r.screened]), [
      ['harder:horizon', 2, [1, 3], 8, 0.45, 0.875],
      ['easier:feedback', 1, [1, 1], 4, 0.5, 0.5],
      ['harder:horizon+harder:feedback', 1, [2, 2], 4, 0.6, 0],
    ]);
    for (const { move: _m, steps: _s, ...check } of rows) assert.ok(aimCheckSchema.safeParse(check).success);
  });
});
