// The calibration bench's intervals take each play's verdict: a play with no outcome (null: an infrastructure error,
// a verification cut short) counts neither as a success nor as a failure, in a rate or in a paired step.
import assert from 'node:assert/strict';
import { pairedDiff, rate } from '../../../bench/calibration/stats.js';

describe('calibration bench statistics', () => {
  it('a rate leaves plays with no outcome out of n', () => {
    const r = rate([true, false, null, true, null]);
    assert.equal(r.n, 3);
    assert.equal(r.successes, 2);
    assert.ok(Math.abs(r.p - 2 / 3) < 1e-12);
    assert.ok(r.low < r.p && r.p < r.high);
  });

  it('a paired step leaves out a pair where either play has no outcome', () => {
    const d = pairedDiff([true, true, null, false, true], [false, null, false, false, true]);
    assert.equal(d.n, 3, 'pairs 2 and 3 have a side with no outcome');
    assert.ok(Math.abs(d.mean - -1 / 3) < 1e-12);
    assert.equal(d.discordant, 1);
  });

  it('refuses outcomes that are not paired index by index', () => {
    assert.throws(() => pairedDiff([true], [true, false]), /differ in length/);
  });
});
