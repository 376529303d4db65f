import assert from 'node:assert/strict';
import { signTest } from '../../../src/core/metrics/distributions.js';
import {
  admissionDecision, admissionProbability, falseAdmissionRate, nominalLevel, statedPower, userAdmissionRule, type AdmissionRule,
} from '../../../src/core/metrics/userAdmission.js';
import { createRng, type Rng } from '../../../src/core/ports/rng.js';

/** One probation of a synthetic child: each look plays `playsPerLook` paired plays, play i of a look drawn by `play`. */
function probation(rule: AdmissionRule, rng: Rng, play: (i: number) => { pWin: number; pLoss: number }): 'admit' | 'refuse' {
  const counts = { wins: 0, losses: 0, paired: 0 };
  for (let look = 1; ; look++) {
    for (let i = 0; i < rule.playsPerLook; i++) {
      const { pWin, pLoss } = play(i);
      const x = rng.next();
      if (x < pWin) counts.wins++;
      else if (x < pWin + pLoss) counts.losses++;
      counts.paired++;
    }
    const d = admissionDecision(rule, counts, look);
    if (d.verdict !== 'continue') return d.verdict;
  }
}

function admittedShare(rule: AdmissionRule, seed: string, runs: number, play: (i: number) => { pWin: number; pLoss: number }): number {
  const rng = createRng(seed);
  let admitted = 0;
  for (let r = 0; r < runs; r++) if (probation(rule, rng.fork(`run-${r}`), play) === 'admit') admitted++;
  return admitted / runs;
}

// Binomial standard error of a share from `runs` simulations: the checks allow 3 of them.
const slack = (p: number, runs: number): number => 3 * Math.sqrt((p * (1 - p)) / runs);

describe('user admission statistics (sequential sign test on paired plays)', () => {
  const rule = userAdmissionRule;
  const runs = 3000;

  it('calibrates its nominal level: the every-play false-admission rate is at most alpha, the next level would exceed it', () => {
    const nominal = nominalLevel(rule.alpha, rule.maxPaired);
    assert.ok(nominal > 0 && nominal < rule.alpha);
    assert.ok(falseAdmissionRate(nominal, rule.maxPaired) <= rule.alpha);
    // The next tail probability above the chosen level breaks the bound (the calibration is tight, not just small).
    let next = 1;
    for (let m = 1; m <= rule.maxPaired; m++) for (let k = 0; k <= m; k++) {
      const t = signTest(k, m - k, 'greater');
      if (t > nominal + 1e-12 && t < next) next = t;
    }
    assert.ok(falseAdmissionRate(next, rule.maxPaired) > rule.alpha, `level ${next} would give ${falseAdmissionRate(next, rule.maxPaired)}`);
  });

  it('admits a synthetic child of the stated effect with at least the stated power (simulated and exact)', () => {
    const exact = admissionProbability(rule, statedPower.pWin, statedPower.pLoss);
    assert.ok(exact >= statedPower.power, `exact power ${exact}`);
    const simulated = admittedShare(rule, 'power', runs, () => statedPower);
    assert.ok(Math.abs(simulated - exact) <= slack(exact, runs), `simulated ${simulated} vs exact ${exact}`);
    assert.ok(simulated >= statedPower.power - slack(statedPower.power, runs), `simulated power ${simulated}`);
  });

  it('refuses a child of no effect at the stated alpha, however often the plays are discordant', () => {
    for (const q of [0.02, 0.1, 0.3, 0.5]) {
      const exact = admissionProbability(rule, q, q);
      assert.ok(exact <= rule.alpha, `discordance ${2 * q}: exact false admission ${exact}`);
      const simulated = admittedShare(rule, `null-${q}`, runs, () => ({ pWin: q, pLoss: q }));
      assert.ok(simulated <= rule.alpha + slack(rule.alpha, runs), `discordance ${2 * q}: simulated false admission ${simulated}`);
    }
  });

  it('keeps alpha when environments differ (each play its own discordance, no effect on any)', () => {
    // A look mixes environments where the move changes much and where it changes nothing: H0 holds play by play.
    const rates = [0.45, 0.05, 0.2, 0];
    const simulated = admittedShare(rule, 'mixed-null', runs, (i) => ({ pWin: rates[i % 4]!, pLoss: rates[i % 4]! }));
    assert.ok(simulated <= rule.alpha + slack(rule.alpha, runs), `simulated false admission ${simulated}`);
  });

  it('refuses a child that is easier than its parent almost always', () => {
    assert.ok(admissionProbability(rule, 0.05, 0.2) < 0.001);
  });

  it('stops a flat move early and an undecided child at its last look', () => {
    assert.deepEqual(admissionDecision(rule, { wins: 0, losses: 0, paired: 16 }, 1).verdict, 'continue');
    const flat = admissionDecision(rule, { wins: 0, losses: 0, paired: 32 }, 2);
    assert.equal(flat.verdict, 'refuse');
    assert.equal(flat.verdict === 'refuse' && flat.why, 'no_effect');
    const undecided = admissionDecision(rule, { wins: 3, losses: 1, paired: 48 }, 3);
    assert.equal(undecided.verdict === 'refuse' && undecided.why, 'out_of_looks');
    // Seven wins and no loss pass at any look (p = 1/128 below the calibrated level); six do not.
    assert.equal(admissionDecision(rule, { wins: 7, losses: 0, paired: 16 }, 1).verdict, 'admit');
    assert.equal(admissionDecision(rule, { wins: 6, losses: 0, paired: 16 }, 1).verdict, 'continue');
  });
});
