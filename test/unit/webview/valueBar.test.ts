import * as assert from 'node:assert/strict';
import { barGeometry, scaleFor } from '../../../src/webview/render/valueBar.js';
import { outOfRangeReason, rewardTerms } from '../../../src/webview/render/rewardTerms.js';
import { computeRewards } from '../../../src/core/rollout/rewards.js';

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

  it('gates every term by the outcome, as computeRewards does, and still explains runs recorded before the gate', () => {
    const w = { verifier: 1, efficiency: 0.3, rubric: 0.2, satisfaction: 0.1 };
    const failed = { verifier: 0, userGoal: 1, satisfaction: 1, efficiency: 0.9, rubric: 1 };
    const stored = computeRewards({ verifierReward: 0, rating: { goalMet: true, satisfaction: 5, reason: '', stopReason: 'goal-met' as never }, agentTurns: 1, turnBudget: 10, tags: [], weights: w as never });
    assert.equal(stored.total, 0, 'a failed rollout earns 0 whatever the weights');
    const now = rewardTerms({ ...failed, total: 0 }, w);
    assert.ok(now.addsUp && now.rule === 'gated');
    assert.ok(now.terms.every((t) => t.contribution === 0));
    // Every number says what it is: the old "1 × verifier 0 × user goal 1" read as words and numbers in a row.
    assert.deepEqual(now.terms.map((t) => t.formula), [
      '1 (weight) × 0 (verifier) × 1 (user goal)',
      '0.30 (weight) × 0.90 (efficiency) × 0 (outcome)',
      '0.20 (weight) × 1 (rubric) × 0 (outcome)',
      '0.10 (weight) × 1 (satisfaction) × 0 (outcome)',
    ]);
    const legacy = rewardTerms({ ...failed, total: 0.27 + 0.2 + 0.1 }, w);
    assert.ok(legacy.addsUp && legacy.rule === 'ungated', 'an old run keeps adding up, by the rule it was recorded with');
  });
});
