import * as assert from 'node:assert/strict';
import { fixed, pp, userEffectText } from '../../../src/webview/render/figures.js';

describe('figures: how the viewers write numbers', () => {
  it('writes negative numbers with a minus sign, and none on a value that rounds to zero', () => {
    assert.equal(fixed(-0.7, 2), '−0.70');
    assert.equal(fixed(0.7, 2), '0.70');
    assert.equal(fixed(-0.001, 2), '0.00');
    assert.equal(fixed(-12.3456, 3), '−12.346');
  });

  it('signs percentage points from the rounded value', () => {
    assert.equal(pp(0.054), '+5 pp');
    assert.equal(pp(-0.05), '−5 pp');
    assert.equal(pp(0.001), '±0 pp');
  });

  it('gives one evolved user no interval, and several users their interval and count', () => {
    const one = userEffectText({ n: 1, mean: 0.05, ci: [0.05, 0.05] });
    assert.equal(one, 'the one evolved user measured so far lowers success by 5 pp against its parent (one user: no interval yet).');
    assert.doesNotMatch(one, /1 users|95 %/);
    assert.equal(
      userEffectText({ n: 3, mean: 0.08, ci: [0.02, 0.14] }),
      'evolved users lower success by 8 pp on average against their parents (parent minus evolved, 95 % interval +2 pp to +14 pp, 3 users).',
    );
    assert.match(userEffectText({ n: 4, mean: -0.03, ci: [-0.09, 0.03] }), /^evolved users raise success by 3 pp .*−9 pp to \+3 pp, 4 users/);
    assert.match(userEffectText({ n: 1, mean: 0, ci: [0, 0] }), /does not change success/);
  });
});
