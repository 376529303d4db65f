import * as assert from 'node:assert/strict';
import { barGeometry, scaleFor } from '../../../src/webview/render/valueBar.js';
import { outOfRangeReason, rewardTerms } from '../../../src/webview/render/rewardTerms.js';

describe('value bars and reward terms', () => {
  it('scales hold every value and zero, never clamp: a negative rubric extends the scale left', () => {
    assert.deepEqual(scaleFor([0.5, 0.2]), { lo: 0, hi: 1 });
    assert.deepEqual(scaleFor([1.3, -0.33]), { lo: -0.33, hi: 1.3 });
    assert.deepEqual(scaleFor([0.1], { lo: -1, hi: 1 }), { lo: -1, hi: 1 });
  });

  it('draws a bar from the zero line to its value, leftwards when negative', () => {
    assert.deepEqual(barGeometry(0, { lo: 0, hi: 1 }), { left: 0, width: 0, zero: 0 });
    assert.deepEqual(barGeometry(1, { lo: 0, hi: 1 }), { left: 0, width: 1, zero: 0 });
    const neg = barGeometry(-0.5, { lo: -1, hi: 1 });
    assert.deepEqual(neg, { left: 0.25, width: 0.25, zero: 0.5 });
    const pos = barGeometry(0.5, { lo: -1, hi: 1 });
    assert.deepEqual(pos, { left: 0.5, width: 0.25, zero: 0.5 });
  });

  it('writes the total as its terms and explains a total outside [0, 1]', () => {
    const w = { verifier: 1, efficiency: 0.1, rubric: 0.1, satisfaction: 0.1 };
    const over = { verifier: 1, userGoal: 1, satisfaction: 1, efficiency: 0.8, rubric: 1, total: 1.28 };
    const b = rewardTerms(over, w);
    assert.ok(b.addsUp);
    assert.deepEqual(b.terms.map((t) => t.name), ['task', 'efficiency', 'rubric', 'satisfaction']);
    assert.match(outOfRangeReason(over, b.terms) ?? '', /Above 1.*efficiency.*rubric.*satisfaction/);
    const under = { verifier: 0, userGoal: 0, satisfaction: 0, efficiency: 0, rubric: -1, total: -0.1 };
    assert.match(outOfRangeReason(under, rewardTerms(under, w).terms) ?? '', /Below 0: rubric penalties/);
    assert.equal(outOfRangeReason({ ...over, total: 0.7 }, b.terms), undefined);
    assert.ok(!rewardTerms({ ...over, total: 0.5 }, w).addsUp, 'a stored total that the terms do not explain is reported');
  });
});
