import assert from 'node:assert/strict';
import { agentGain, risingSteps } from '../../../src/core/metrics/agentGain.js';
import type { GenerationMetrics } from '../../../src/core/metrics/metricsSchema.js';

type Gen = Pick<GenerationMetrics, 'agent' | 'heldOut'>;
const score = (agentId: string, success: number) => ({ agentId, plays: 32, successes: Math.round(success * 32), success, ci: [0, 1] as [number, number], measuredAt: 0 });

/** A generation whose agent scores `success` on the test set; `promoted` replaced `previous` (difference, worse). */
function gen(agentId: string, success: number, opts: { promoted?: { previous: string; difference: number; worse?: boolean } | 'unmeasured'; initial?: number } = {}): Gen {
  const p = opts.promoted;
  return {
    agent: { id: agentId, changed: p !== undefined },
    heldOut: {
      test: {
        pairs: 8, playsPerPair: 4, source: 'generated', score: score(agentId, success),
        ...(opts.initial !== undefined ? { initial: score('agent-0', opts.initial) } : {}),
        vsPrevious: p && p !== 'unmeasured' ? { agentId: p.previous, difference: p.difference, pValue: 0.01, worse: p.worse ?? false } : null,
      },
      promotion: null,
    },
  };
}

describe('agent gain on the frozen test set', () => {
  it('uses the recorded starting agent: a generation-0 promotion is part of the gain', () => {
    // Generation 0 promoted a +20-point candidate: heldOut[0] already shows it, the starting agent scored 0.25.
    const gens = [gen('a1', 0.45, { promoted: { previous: 'a0', difference: 0.2 }, initial: 0.25 }), gen('a1', 0.45, { initial: 0.25 }), gen('a2', 0.55, { promoted: { previous: 'a1', difference: 0.1 }, initial: 0.25 })];
    const g = agentGain(gens)!;
    assert.equal(g.initialSource, 'recorded');
    assert.equal(g.initial, 0.25);
    assert.ok(Math.abs(g.gain - 0.3) < 1e-12, `gain ${g.gain}`);
    assert.equal(g.promotions, 2);
    assert.equal(g.worse, 0);
    assert.equal(g.unmeasured, 0);
  });

  it('reconstructs the starting agent in runs written before `initial` from generation 0\'s paired difference', () => {
    const gens = [gen('a1', 0.45, { promoted: { previous: 'a0', difference: 0.2 } }), gen('a1', 0.45)];
    const g = agentGain(gens)!;
    assert.equal(g.initialSource, 'replaced');
    assert.ok(Math.abs(g.initial - 0.25) < 1e-12);
    assert.ok(Math.abs(g.gain - 0.2) < 1e-12);
  });

  it('reads generation 0 when it promoted nothing, and counts worse and unmeasured promotions', () => {
    const gens = [gen('a0', 0.3), gen('a1', 0.2, { promoted: { previous: 'a0', difference: -0.1, worse: true } }), gen('a2', 0.35, { promoted: 'unmeasured' })];
    const g = agentGain(gens)!;
    assert.equal(g.initialSource, 'generation-0');
    assert.equal(g.initial, 0.3);
    assert.ok(Math.abs(g.gain - 0.05) < 1e-12);
    assert.deepEqual([g.promotions, g.worse, g.unmeasured], [2, 1, 1]);
  });

  it('is null without a test set', () => {
    assert.equal(agentGain([{ agent: { id: 'a0', changed: false }, heldOut: { test: null, promotion: null } }]), null);
    assert.equal(agentGain([]), null);
  });
});

describe('rising steps', () => {
  it('counts a step only when the mean rises by more than that generation\'s standard error', () => {
    const series = [{ mean: 0, se: 0.1 }, { mean: 0.2, se: 0.1 }, { mean: 0.25, se: 0.1 }, { mean: 0.1, se: 0.05 }, { mean: 0.3, se: 0.2 }];
    // 0 -> 0.2 rises by 0.2 > 0.1; 0.2 -> 0.25 by 0.05 < 0.1; a fall; 0.1 -> 0.3 by exactly 0.2 is not more than 0.2.
    assert.deepEqual(risingSteps(series), { rising: 1, steps: 4 });
    assert.deepEqual(risingSteps([{ mean: 1, se: 0 }]), { rising: 0, steps: 0 });
  });
});
