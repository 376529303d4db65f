import assert from 'node:assert/strict';
import { bandPlateau, classifyPair } from '../../../src/core/metrics/band.js';
import { pairStats } from '../../../src/core/metrics/pairStats.js';
import { passAtK, passHatK } from '../../../src/core/metrics/passK.js';
import type { RolloutSummary } from '../../../src/core/rollout/trajectory.js';

const band = { low: 0.4, high: 0.6, ramp: 0.25 };
const fitness = { band: 0.6, regret: 0.4, novelty: 0, cost: 0 };

function summary(i: number, success: boolean, hint = false, reward = success ? 1 : 0): RolloutSummary {
  return { id: `r${i}${hint ? 'h' : ''}`, generation: 0, pairId: 'p', envId: 'e', userId: 'u', trial: i, hint, status: 'terminated', success, reward, durationMs: 1, costUsd: 0, tokens: 0, steps: 1, tags: [] };
}

describe('pass@k and pass^k', () => {
  it('match the closed forms', () => {
    assert.equal(passAtK(4, 2, 1), 0.5);
    assert.equal(passHatK(4, 2, 1), 0.5);
    assert.ok(Math.abs(passAtK(4, 2, 2) - (1 - 1 / 6)) < 1e-12);
    assert.ok(Math.abs(passHatK(4, 2, 2) - 1 / 6) < 1e-12);
    assert.equal(passAtK(4, 0, 3), 0);
    assert.equal(passHatK(4, 4, 4), 1);
    assert.equal(passAtK(4, 3, 2), 1);
  });
  it('pass^k never exceeds pass@k', () => {
    for (let n = 1; n <= 8; n++) for (let c = 0; c <= n; c++) for (let k = 1; k <= 4; k++) assert.ok(passHatK(n, c, k) <= passAtK(n, c, k) + 1e-12);
  });
});

describe('band', () => {
  it('is a plateau with linear ramps', () => {
    assert.equal(bandPlateau(0.5, band), 1);
    assert.equal(bandPlateau(0.4, band), 1);
    assert.ok(Math.abs(bandPlateau(0.275, band) - 0.5) < 1e-9);
    assert.equal(bandPlateau(0, band), 0);
    assert.equal(bandPlateau(1, band), 0);
  });
  it('separates learnable hard pairs from broken ones by regret', () => {
    assert.equal(classifyPair(1, 0, band), 'too_easy');
    assert.equal(classifyPair(0, 0, band), 'too_hard');
    assert.equal(classifyPair(0, 0.5, band), 'frontier');
    assert.equal(classifyPair(0.5, 0, band), 'frontier');
  });
});

describe('pair stats', () => {
  it('computes success, regret floored at zero, and fitness', () => {
    const plays = [summary(0, true), summary(1, false), summary(2, false), summary(3, true), summary(0, true, true), summary(1, true, true)];
    const s = pairStats({ pairId: 'p', envId: 'e', userId: 'u' }, plays, { band, fitness });
    assert.equal(s.plays, 4);
    assert.equal(s.successRate, 0.5);
    assert.equal(s.regret, 0.5);
    assert.equal(s.class, 'frontier');
    assert.ok(Math.abs(s.fitness - (0.6 + 0.4)) < 1e-9);
    const noHelp = pairStats({ pairId: 'p', envId: 'e', userId: 'u' }, [summary(0, true), summary(0, false, true)], { band, fitness });
    assert.equal(noHelp.regret, 0);
  });
});
