import assert from 'node:assert/strict';
import { logistic, signTest, wilsonInterval } from '../../../src/core/metrics/distributions.js';
import { evidenceNeed, pairPosterior, replayScore } from '../../../src/core/metrics/pairEvidence.js';
import { fitRasch, type RaschCell, type RaschParameter } from '../../../src/core/metrics/rasch.js';
import { admissionRealismViolations, emptyTally, realismIndicatorBounds, realismViolations, tallyRealism } from '../../../src/core/metrics/realismIndicators.js';
import type { RolloutRecord } from '../../../src/core/rollout/trajectory.js';
import { evalRolloutId, inBandExpected, inBandRedrawSd, trueSpread } from '../../../src/core/metrics/evalResult.js';
import { binomialCdf } from '../../../src/core/metrics/distributions.js';
import { meanWithInterval } from '../../../src/core/metrics/summaries.js';
import { isSafeId } from '../../../src/store/runPaths.js';
import { probationRealismViolations } from '../../../src/core/evolution/userAdmission.js';
import { createRng } from '../../../src/core/ports/rng.js';

const band = { low: 0.4, high: 0.6 };

describe('Rasch estimator (synthetic agent of known ability)', () => {
  // Known truth: P(success) = sigmoid(θ − b − u). Environments spread over [-2, 2], users over [-0.8, 0.8].
  const trueB = [-2, -1.2, -0.5, 0, 0.4, 1, 1.6, 2];
  const trueU = [-0.8, 0, 0.8];
  const trueTheta = [0.3, 1.1];
  function simulate(playsPerCell: number, seed: string): { params: RaschParameter[]; cells: RaschCell[] } {
    const rng = createRng(seed);
    const params: RaschParameter[] = [
      ...trueTheta.map((_, i) => ({ kind: 'agent' as const, id: `a${i}`, priorSd: 2 })),
      ...trueB.map((_, i) => ({ kind: 'environment' as const, id: `e${i}`, priorSd: 2, anchor: true })),
      ...trueU.map((_, i) => ({ kind: 'user' as const, id: `u${i}`, priorSd: 2, anchor: true })),
    ];
    const cells: RaschCell[] = [];
    trueTheta.forEach((t, a) => trueB.forEach((b, e) => trueU.forEach((u, us) => {
      let s = 0;
      for (let i = 0; i < playsPerCell; i++) if (rng.next() < logistic(t - b - u)) s++;
      cells.push({ agent: `a${a}`, env: `e${e}`, user: `u${us}`, successes: s, trials: playsPerCell });
    })));
    return { params, cells };
  }

  it('recovers known difficulties and abilities within their standard errors (anchored to the mean of the seeds)', () => {
    const { params, cells } = simulate(40, 'rasch-1');
    const fit = fitRasch(params, cells);
    // On the fitted scale the seed environments average 0: the truth, shifted the same way, is what must come back.
    const meanB = trueB.reduce((a, b) => a + b, 0) / trueB.length;
    const pairs = [
      ...trueB.map((b, i) => ({ truth: b - meanB, est: fit.environments.get(`e${i}`)! })),
      ...trueU.map((u, i) => ({ truth: u, est: fit.users.get(`u${i}`)! })),
      ...trueTheta.map((t, i) => ({ truth: t - meanB, est: fit.agents.get(`a${i}`)! })),
    ];
    const z = pairs.map((p) => Math.abs(p.est.value - p.truth) / p.est.se);
    const meanAbsError = pairs.reduce((s, p) => s + Math.abs(p.est.value - p.truth), 0) / pairs.length;
    assert.ok(Math.max(...z) < 3.5, `largest error ${Math.max(...z).toFixed(2)} standard errors`);
    assert.ok(meanAbsError < 0.2, `mean absolute error ${meanAbsError.toFixed(3)}`);
    const anchoredMean = [...fit.environments.values()].reduce((s, e) => s + e.value, 0) / trueB.length;
    assert.ok(Math.abs(anchoredMean) < 1e-9, 'the seed environments average 0');
  });

  it('orders difficulty correctly and shrinks a child with no plays to its parent', () => {
    const { params, cells } = simulate(20, 'rasch-2');
    params.push({ kind: 'environment', id: 'child', parent: 'e6', priorSd: 1 });
    const fit = fitRasch(params, cells);
    const est = trueB.map((_, i) => fit.environments.get(`e${i}`)!.value);
    for (let i = 1; i < est.length; i++) assert.ok(est[i]! > est[i - 1]! - 0.3, `e${i} not below e${i - 1}`);
    assert.ok(Math.abs(fit.environments.get('child')!.value - fit.environments.get('e6')!.value) < 1e-6);
    assert.ok(fit.environments.get('child')!.se > fit.environments.get('e6')!.se, 'an unplayed child is less certain');
  });

  it('is deterministic and its predictions do not depend on the anchor', () => {
    const { params, cells } = simulate(10, 'rasch-3');
    const a = fitRasch(params, cells);
    const b = fitRasch(params, cells);
    assert.deepEqual([...a.environments.values()], [...b.environments.values()]);
    const reanchored = fitRasch(params.map((p) => (p.kind === 'environment' ? { ...p, anchor: p.id === 'e0' } : p)), cells);
    assert.ok(Math.abs(reanchored.predict('a1', 'e3', 'u2') - a.predict('a1', 'e3', 'u2')) < 1e-9);
    assert.ok(Math.abs(reanchored.environments.get('e0')!.value) < 1e-9);
  });
});

describe('pair evidence (Beta posterior)', () => {
  it('calls a pair too easy, too hard or in band only with the stated confidence', () => {
    assert.equal(pairPosterior([{ age: 0, successes: 3, trials: 4 }], 0.5, band).class, 'undecided');
    assert.equal(pairPosterior([{ age: 0, successes: 12, trials: 12 }], 0.5, band).class, 'too_easy');
    assert.equal(pairPosterior([{ age: 0, successes: 0, trials: 10 }], 0.5, band).class, 'too_hard');
    const mid = pairPosterior([{ age: 0, successes: 50, trials: 100 }], 0.5, band);
    assert.equal(mid.class, 'in_band');
    assert.ok(Math.abs(mid.pInBand + mid.pAbove + mid.pBelow - 1) < 1e-9);
  });

  it('discounts plays of earlier agents and starts from the model prediction', () => {
    const old = pairPosterior([{ age: 3, successes: 0, trials: 12 }], 0.5, band);
    assert.equal(old.weightedPlays, 1.5);
    assert.equal(old.class, 'undecided', 'twelve failures of an agent three promotions ago are weak evidence now');
    assert.equal(pairPosterior([{ age: 0, successes: 0, trials: 12 }], 0.5, band).class, 'too_hard');
    const unplayed = pairPosterior([], 0.9, band);
    assert.ok(Math.abs(unplayed.mean - 0.9) < 1e-9);
    assert.equal(unplayed.weightedPlays, 0);
  });
});

describe('replay score', () => {
  const band = { low: 0.4, high: 0.6 };
  // A seed pair the model predicts far too hard, never played itself, beside a child with 2 of 4 own plays.
  const seed = pairPosterior([], 0.15, band);
  const child = pairPosterior([{ age: 0, successes: 2, trials: 4 }], 0.5, band);
  it('at the floor, replays what is least decided: the undecided child before the seed the model already places', () => {
    assert.equal(replayScore(seed, false), evidenceNeed(seed));
    assert.ok(replayScore(child, false) > replayScore(seed, false), `${replayScore(child, false)} vs ${replayScore(seed, false)}`);
  });
  it('above the floor, replays the seed likely out of band that lacks the own plays to leave', () => {
    assert.ok(replayScore(seed, true) > replayScore(child, true), `${replayScore(seed, true)} vs ${replayScore(child, true)}`);
    assert.ok(Math.abs(replayScore(seed, true) - (1 - seed.pInBand)) < 1e-12);
  });
  it('a pair with the own plays to decide is scored by its indecision alone', () => {
    const decided = pairPosterior([{ age: 0, successes: 0, trials: 8 }], 0.15, band);
    assert.equal(replayScore(decided, true), evidenceNeed(decided));
  });
});

describe('tests and intervals', () => {
  it('exact sign test matches the binomial tails', () => {
    assert.ok(Math.abs(signTest(8, 2, 'greater') - 56 / 1024) < 1e-9);
    assert.ok(Math.abs(signTest(2, 8, 'two-sided') - (2 * 56) / 1024) < 1e-9);
    assert.equal(signTest(0, 0, 'greater'), 1);
    assert.equal(signTest(5, 5, 'two-sided'), 1);
  });

  it('Wilson interval contains the estimate and narrows with n', () => {
    const [lo, hi] = wilsonInterval(10, 20);
    assert.ok(lo < 0.5 && hi > 0.5 && Math.abs(hi - lo - 0.4) < 0.02);
    const [lo2, hi2] = wilsonInterval(100, 200);
    assert.ok(hi2 - lo2 < hi - lo);
    assert.deepEqual(wilsonInterval(0, 0), [0, 1]);
  });

  it('paired mean interval uses t', () => {
    const r = meanWithInterval([0.1, 0.2, 0.3]);
    assert.ok(Math.abs(r.mean - 0.2) < 1e-12);
    assert.ok(Math.abs(r.ci[1] - (0.2 + 4.302652729911275 * 0.1 / Math.sqrt(3))) < 1e-6);
  });

  it('realism bounds name each violation', () => {
    const ok = { referenceSatisfied: true, disclosureRate: 0.6, meanMessageChars: 80, meanAgentTurns: 8, walkAwayShare: 0.1 };
    assert.deepEqual(realismViolations(ok), []);
    const bad = realismViolations({ ...ok, referenceSatisfied: false, walkAwayShare: 0.8, disclosureRate: 0.1 });
    assert.equal(bad.length, 3);
    assert.match(bad.join('; '), /walkAwayShare 0\.8 outside 0\.\.0\.5/);
    assert.deepEqual(realismIndicatorBounds.meanAgentTurns, [2, 25]);
  });

  it('realism counts only plays with an outcome: an errored play or one whose rating was cut is left out', () => {
    // A play the user walked away from, one it finished, and two with no outcome: an infrastructure error, and a
    // rating the run's wall clock cut (no stop reason recorded, so it would read as a user who stayed).
    const play = (extra: Record<string, unknown>): RolloutRecord => ({
      status: 'terminated', success: false,
      steps: [{ source: 'user', message: 'the report is in /data' }, { source: 'agent' }, { source: 'agent' }],
      ...extra,
    }) as unknown as RolloutRecord;
    const records = [
      play({ userRating: { stopReason: 'out_of_patience' } }),
      play({ success: true, userRating: { stopReason: 'satisfied' } }),
      play({ status: 'error' }),
      play({ unfinished: { step: 'rating', reason: 'wall_clock' } }),
    ];
    const t = tallyRealism(records);
    assert.equal(t.plays, 2);
    assert.equal(t.walked, 1, 'walk-aways over the plays with an outcome: 1 of 2, not 1 of 3');
    assert.equal(t.turns, 4);
  });

  it('admission asks the share indicators to be inside their bounds by one standard error of their own plays', () => {
    // 16 plays of 8 turns, 40 replies of which 24 disclose, 60 chars a message.
    const tally = (walked: number, disclosing = 24) => ({ ...emptyTally(), plays: 16, turns: 128, messages: 40, chars: 2400, replies: 40, disclosing, walked });
    // The edge case that prompted it: 8 walk-aways in 16 plays is inside the plain bound and out at admission.
    assert.deepEqual(realismViolations({ referenceSatisfied: true, disclosureRate: 0.6, meanMessageChars: 60, meanAgentTurns: 8, walkAwayShare: 0.5 }), []);
    assert.match(admissionRealismViolations(tally(8), true).join('; '), /^walkAwayShare 0\.5 \(se 0\.125 over 16 plays\) not inside 0\.\.0\.5 by one standard error$/);
    // 6 of 16 (0.375 + 0.121 = 0.496) is inside; 7 of 16 (0.4375 + 0.124) is not.
    assert.deepEqual(admissionRealismViolations(tally(6), true), []);
    assert.equal(admissionRealismViolations(tally(7), true).length, 1);
    // Disclosure near its lower bound 0.25: 12 of 40 (0.3 - 0.072) is out, 14 of 40 (0.35 - 0.075) is in.
    assert.match(admissionRealismViolations(tally(0, 12), true).join('; '), /^disclosureRate 0\.3 \(se 0\.072 over 40 replies\)/);
    assert.deepEqual(admissionRealismViolations(tally(0, 14), true), []);
    // Already outside: said once, by the plain bound; and the reference verdict still counts.
    assert.deepEqual(admissionRealismViolations(tally(12), true), ['walkAwayShare 0.75 outside 0..0.5']);
    assert.deepEqual(admissionRealismViolations(tally(0), false), ['a reference play with the hint did not satisfy the user']);
  });

  it('admission reads a user child on the pair it joins as well as over all its look environments', () => {
    const tally = (plays: number, walked: number) => ({ ...emptyTally(), plays, turns: plays * 8, messages: 40, chars: 2400, replies: 40, disclosing: 24, walked });
    // Seed 2's terse expert of the level-1.5 bench, as it could have looked: 7 of 16 on its pair, none elsewhere:
    // 7 of 32 pooled is inside by far, its pair is not (0.4375 + 0.124 > 0.5).
    const child = { realism: tally(32, 7), pairRealism: tally(16, 7), referenceSatisfied: true };
    assert.deepEqual(admissionRealismViolations(child.realism, true), []);
    assert.deepEqual(probationRealismViolations(child), ["on its pair's environment: walkAwayShare 0.438 (se 0.124 over 16 plays) not inside 0..0.5 by one standard error"]);
    assert.deepEqual(probationRealismViolations({ ...child, pairRealism: tally(16, 6) }), []);
    // A child put on probation before the pair was read (an older ledger) is judged on its pooled plays alone.
    assert.deepEqual(probationRealismViolations({ realism: child.realism, referenceSatisfied: true }), []);
    assert.deepEqual(probationRealismViolations({ ...child, referenceSatisfied: false }).length, 2);
  });
});

describe('eval rollout ids', () => {
  const pair = { envId: 'log-triage-h2s2f1d2t1-6e00eeb6', userId: 'cooperative-novice' };
  it('follow the environment and user, not the pair number, so one admitted pair does not re-draw the plays of the others', () => {
    assert.equal(evalRolloutId(7, pair, 3), evalRolloutId(7, { ...pair }, 3));
    assert.notEqual(evalRolloutId(7, pair, 3), evalRolloutId(7, { ...pair, userId: 'terse-expert' }, 3));
    assert.notEqual(evalRolloutId(7, pair, 3), evalRolloutId(8, pair, 3));
    assert.notEqual(evalRolloutId(7, pair, 3), evalRolloutId(7, pair, 4));
    assert.match(evalRolloutId(7, pair, 3), /^eval-s7-/);
  });
  it('stay safe rollout file names however long the ids are', () => {
    const long = { envId: `e${'x'.repeat(150)}`, userId: `u${'y'.repeat(60)}` };
    const id = evalRolloutId(2026, long, 19);
    assert.ok(isSafeId(id), id);
    assert.notEqual(id, evalRolloutId(2026, { ...long, userId: `${long.userId}z` }, 19));
    assert.ok(isSafeId(evalRolloutId(2026, pair, 0)));
  });
});

describe('eval in-band share redraw sd', () => {
  const band = { low: 0.4, high: 0.6 };
  it('matches the spread of the share over simulated redraws of the same archive', () => {
    const truth = Array.from({ length: 40 }, (_, i) => 0.25 + (0.5 * i) / 39);
    const pairs = truth.map((p) => ({ plays: 20, success: p }));
    const rng = createRng('redraw');
    const shares: number[] = [];
    for (let r = 0; r < 4000; r++) {
      let inBand = 0;
      for (const p of truth) {
        let s = 0;
        for (let t = 0; t < 20; t++) if (rng.next() < p) s++;
        if (s >= 8 && s <= 12) inBand++;
      }
      shares.push(inBand / truth.length);
    }
    const mean = shares.reduce((a, b) => a + b, 0) / shares.length;
    const sd = Math.sqrt(shares.reduce((a, b) => a + (b - mean) ** 2, 0) / (shares.length - 1));
    const predicted = inBandRedrawSd(pairs, band);
    assert.ok(Math.abs(predicted - sd) < 0.006, `predicted ${predicted}, simulated ${sd}`);
    assert.ok(predicted > 0.05 && predicted < 0.1, `about 8 points on 40 pairs: ${predicted}`);
  });
  it('is 0 for pairs that cannot change their call and counts the band edges as in', () => {
    assert.equal(inBandRedrawSd([{ plays: 20, success: 0 }, { plays: 20, success: 1 }], band), 0);
    assert.equal(inBandRedrawSd([], band), 0);
    // 8 of 20 is exactly 0.4, in band: q = P(8 <= K <= 12 | 20, 0.4), strictly between 0 and 1.
    const one = inBandRedrawSd([{ plays: 20, success: 0.4 }], band);
    assert.ok(one > 0.3 && one < 0.5, String(one));
  });
});

describe('eval true spread of success', () => {
  it('removes the binomial noise: recovers the known sd of simulated archives, where the raw sd overstates it', () => {
    const rng = createRng('spread');
    for (const sd of [0, 0.08, 0.14]) {
      const est: number[] = [];
      const raw: number[] = [];
      for (let a = 0; a < 300; a++) {
        const pairs = Array.from({ length: 40 }, (_, i) => {
          const p = Math.min(0.98, Math.max(0.02, 0.5 + sd * (((i * 7919) % 40) / 39 - 0.5) * Math.sqrt(12)));
          let s = 0;
          for (let t = 0; t < 20; t++) if (rng.next() < p) s++;
          return { plays: 20, success: s / 20 };
        });
        est.push(trueSpread(pairs)!);
        const m = pairs.reduce((t, p) => t + p.success, 0) / pairs.length;
        raw.push(Math.sqrt(pairs.reduce((t, p) => t + (p.success - m) ** 2, 0) / (pairs.length - 1)));
      }
      const mean = (xs: number[]): number => xs.reduce((x, y) => x + y, 0) / xs.length;
      assert.ok(Math.abs(mean(est) - sd) < 0.03, `sd ${sd}: estimated ${mean(est)}`);
      assert.ok(mean(raw) > sd + 0.03, `sd ${sd}: the raw sd ${mean(raw)} carries the noise`);
    }
  });
  it('says nothing from fewer than two pairs of two plays', () => {
    assert.equal(trueSpread([{ plays: 20, success: 0.5 }]), null);
    assert.equal(trueSpread([{ plays: 1, success: 1 }, { plays: 1, success: 0 }]), null);
  });
});

describe('eval in-band share expected on another draw', () => {
  const band = { low: 0.4, high: 0.6 };
  const inBandChance = (p: number): number => binomialCdf(12, 20, p) - binomialCdf(7, 20, p);
  const mean = (xs: number[]): number => xs.reduce((x, y) => x + y, 0) / xs.length;

  it('recovers the share another draw reads on simulated archives of known spread, steadier than one draw, where plugging in each estimate reads low', () => {
    const rng = createRng('expected');
    for (const [centre, sd] of [[0.5, 0], [0.5, 0.08], [0.45, 0.14], [0.35, 0.1]] as const) {
      const truth = Array.from({ length: 40 }, (_, i) => Math.min(0.98, Math.max(0.02, centre + sd * (((i * 7919) % 40) / 39 - 0.5) * Math.sqrt(12))));
      // What a fresh draw of 20 plays a pair reads on average: the figure the estimate is for.
      const target = mean(truth.map(inBandChance));
      const est: number[] = [];
      const plugIn: number[] = [];
      const raw: number[] = [];
      for (let a = 0; a < 200; a++) {
        const pairs = truth.map((p) => {
          let k = 0;
          for (let t = 0; t < 20; t++) if (rng.next() < p) k++;
          return { plays: 20, successes: k, success: k / 20 };
        });
        est.push(inBandExpected(pairs, band)!);
        plugIn.push(mean(pairs.map((p) => inBandChance(p.success))));
        raw.push(mean(pairs.map((p) => (p.success >= 0.4 && p.success <= 0.6 ? 1 : 0))));
      }
      const sdOf = (xs: number[]): number => Math.sqrt(mean(xs.map((x) => (x - mean(xs)) ** 2)));
      // Within 3 points of what another draw reads, and steadier than the share one draw reads.
      assert.ok(sdOf(est) < 0.8 * sdOf(raw), `centre ${centre}, sd ${sd}: scatter ${sdOf(est).toFixed(3)} against one draw's ${sdOf(raw).toFixed(3)}`);
      assert.ok(Math.abs(mean(est) - target) < 0.03, `centre ${centre}, sd ${sd}: expected ${mean(est).toFixed(3)}, another draw reads ${target.toFixed(3)}`);
      if (sd <= 0.1) assert.ok(mean(plugIn) < target - 0.03, `centre ${centre}, sd ${sd}: the plug-in ${mean(plugIn).toFixed(3)} reads low against ${target.toFixed(3)}`);
    }
  });
  it('says nothing from fewer than two pairs, and counts pairs without plays as out of the band', () => {
    assert.equal(inBandExpected([{ plays: 20, successes: 10, success: 0.5 }], band), null);
    const two = inBandExpected([{ plays: 20, successes: 10, success: 0.5 }, { plays: 20, successes: 10, success: 0.5 }], band)!;
    assert.ok(Math.abs(two - inBandChance(0.5)) < 1e-9, `no spread: every pair at the mean (${two})`);
    const withEmpty = inBandExpected([{ plays: 20, successes: 10, success: 0.5 }, { plays: 20, successes: 10, success: 0.5 }, { plays: 0, successes: 0, success: 0 }], band)!;
    assert.ok(Math.abs(withEmpty - (2 * inBandChance(0.5)) / 3) < 1e-9, String(withEmpty));
  });
});
