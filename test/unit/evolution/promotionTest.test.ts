// The promotion rule against a synthetic agent of known ability: P(success on pair i) = sigmoid(θ − b_i). Races are
// run look by look with the same functions evolveAgent uses (lookAt, raceDecision), on the demo's promotion set
// (8 pairs x 3 plays per look). The false-promotion rate of a no-gain candidate must be at most alpha over many races,
// and a candidate +0.15 better on the set must be promoted with the power ARCHITECTURE.md states.
import assert from 'node:assert/strict';
import { lookAt, promotionRule, raceDecision, raceEvidence, racePValue, type RaceTally } from '../../../src/core/evolution/promotionTest.js';
import { logistic } from '../../../src/core/metrics/distributions.js';
import { createRng } from '../../../src/core/ports/rng.js';

/** Difficulties of the 8 promotion pairs (a spread like the demo's: some near 0 success, some near 0.5). */
const pairs = [-0.5, 0.3, 0.8, 1.2, 1.6, 2.0, 2.6, 3.5];
const playsPerPair = 3;
const theta = 0;
const races = 2000;

const success = (ability: number, b: number): number => logistic(ability - b);
const meanSuccess = (ability: number, bs: number[] = pairs): number => bs.reduce((s, b) => s + success(ability, b), 0) / bs.length;

/** The candidate ability whose mean success on the set is the incumbent's plus `gain` (bisection). */
function abilityFor(gain: number): number {
  const target = meanSuccess(theta) + gain;
  let lo = theta - 5, hi = theta + 5;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (meanSuccess(mid) < target) lo = mid; else hi = mid;
  }
  return (lo + hi) / 2;
}

/**
 * One race to its end. `coupling` is the share of plays on which both agents draw the same random number (the
 * built-in agent plays the same rollout id with the same named streams, so most of its plays are coupled; an LLM's
 * sampled replies are closer to independent). `pCand(i)` gives the candidate's success on pair i.
 */
function race(seed: string, pCand: (b: number) => number, coupling: number): { decision: string; looks: number } {
  const rng = createRng(seed);
  let tally: RaceTally = { wins: 0, losses: 0, looks: 0 };
  for (;;) {
    const inc: boolean[] = [], cand: boolean[] = [];
    for (const b of pairs) {
      for (let t = 0; t < playsPerPair; t++) {
        const p0 = success(theta, b), p1 = pCand(b);
        if (rng.next() < coupling) {
          const u = rng.next();
          inc.push(u < p0);
          cand.push(u < p1);
        } else {
          inc.push(rng.next() < p0);
          cand.push(rng.next() < p1);
        }
      }
    }
    tally = lookAt(tally, cand, inc);
    const decision = raceDecision(tally);
    if (decision !== 'raced') return { decision, looks: tally.looks };
  }
}

function promotionRate(label: string, pCand: (b: number) => number, coupling: number): number {
  let promoted = 0;
  for (let i = 0; i < races; i++) if (race(`${label}/${i}`, pCand, coupling).decision === 'promoted') promoted++;
  return promoted / races;
}

describe('promotion rule (sequential sign test) with a synthetic agent of known ability', () => {
  it('evidence is 1 with no discordant play, grows with wins, shrinks with losses; p = min(1, 1 / evidence)', () => {
    assert.equal(raceEvidence(0, 0), 1);
    assert.ok(raceEvidence(5, 0) > raceEvidence(4, 0));
    assert.ok(raceEvidence(5, 1) < raceEvidence(5, 0));
    assert.equal(racePValue(0, 3), 1);
    assert.ok(Math.abs(racePValue(8, 0) - 1 / raceEvidence(8, 0)) < 1e-12);
    // The threshold in plays: 7 wins and no loss reach 1 / alpha = 20; 6 do not; 9 wins outweigh 1 loss.
    assert.equal(raceDecision({ wins: 7, losses: 0, looks: 1 }), 'promoted');
    assert.equal(raceDecision({ wins: 6, losses: 0, looks: 1 }), 'raced');
    assert.equal(raceDecision({ wins: 9, losses: 1, looks: 1 }), 'promoted');
    assert.equal(raceDecision({ wins: 6, losses: 0, looks: promotionRule.maxLooks }), 'dropped');
    assert.equal(raceDecision({ wins: 1, losses: 3, looks: 1 }), 'dropped', 'two behind: the slot is freed');
    assert.equal(raceDecision({ wins: 0, losses: 1, looks: 1 }), 'raced', 'one loss at the first look: one more look');
    assert.equal(raceDecision({ wins: 1, losses: 2, looks: 2 }), 'dropped', 'behind after two looks');
    assert.equal(raceDecision({ wins: 0, losses: 0, looks: 1 }), 'raced', 'no discordant play yet: one more look');
    assert.equal(raceDecision({ wins: 2, losses: 2, looks: 2 }), 'dropped', 'still not ahead after two looks');
  });

  it(`a no-gain candidate is promoted in at most alpha = ${promotionRule.alpha} of ${races} races (independent, coupled, and better on some pairs, worse on others)`, () => {
    const same = (b: number): number => success(theta, b);
    // The same mean success as the incumbent from another profile: the incumbent's success per pair in reverse order
    // (good where the incumbent is bad and the other way round), so it wins many plays and loses as many.
    const tilted = (b: number): number => success(theta, pairs[pairs.length - 1 - pairs.indexOf(b)]!);
    const tiltedMean = pairs.reduce((s, b) => s + tilted(b), 0) / pairs.length;
    assert.ok(Math.abs(tiltedMean - meanSuccess(theta)) < 1e-9, 'the tilted candidate has no gain on the set');
    for (const [label, p, coupling] of [['independent', same, 0], ['coupled', same, 1], ['half coupled', same, 0.5], ['tilted', tilted, 0], ['tilted coupled', tilted, 0.7]] as const) {
      const rate = promotionRate(`null/${label}`, p, coupling);
      assert.ok(rate <= promotionRule.alpha, `${label}: ${rate} promoted, more than alpha`);
    }
  });

  it('a worse candidate is promoted even more rarely than a no-gain one', () => {
    const worse = abilityFor(-0.1);
    assert.ok(promotionRate('worse', (b) => success(worse, b), 0) <= promotionRule.alpha / 5);
  });

  it('a candidate +0.15 better on the set is promoted with the stated power: >= 0.95 on coupled plays, >= 0.75 half coupled, >= 0.5 independent; +0.05 coupled >= 0.4', () => {
    const better = abilityFor(0.15);
    assert.ok(Math.abs(meanSuccess(better) - meanSuccess(theta) - 0.15) < 1e-9);
    const coupled = promotionRate('gain/coupled', (b) => success(better, b), 1);
    const half = promotionRate('gain/half', (b) => success(better, b), 0.5);
    const independent = promotionRate('gain/independent', (b) => success(better, b), 0);
    assert.ok(coupled >= 0.95, `coupled power ${coupled}`);
    assert.ok(half >= 0.75, `half-coupled power ${half}`);
    assert.ok(independent >= 0.5, `independent power ${independent}`);
    // A small real step (5 points on the set) on coupled plays: races of up to six looks finish most of them.
    const small = abilityFor(0.05);
    const smallCoupled = promotionRate('gain/small', (b) => success(small, b), 1);
    assert.ok(smallCoupled >= 0.4, `+0.05 coupled power ${smallCoupled}`);
  });
});
