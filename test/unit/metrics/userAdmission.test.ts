import assert from 'node:assert/strict';
import { signTest } from '../../../src/core/metrics/distributions.js';
import {
  admissionDecision, admissionProbability, falseAdmissionRate, nominalLevel, scheduleFalseAdmissionRate, scheduleLevel, statedPower, userAdmissionRule,
  type AdmissionRule,
} from '../../../src/core/metrics/userAdmission.js';
import { probationRules } from '../../../src/core/evolution/userAdmission.js';
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

/** probation() named for a caller that keeps its own look counter. */
const probationOnce = (rule: AdmissionRule, rng: Rng, play: (i: number) => { pWin: number; pLoss: number }): 'admit' | 'refuse' => probation(rule, rng, play);

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

  it('calibrates the level the loop decides at for its look schedule: the worst discordance pattern stays within alpha, the next level does not', () => {
    const level = scheduleLevel(rule);
    // Looking only at look ends is less conservative than looking after every play, never more.
    assert.ok(level >= nominalLevel(rule.alpha, rule.maxPaired) && level < rule.alpha, `level ${level}`);
    assert.ok(scheduleFalseAdmissionRate(rule, level) <= rule.alpha);
    let next = 1;
    for (let m = 1; m <= rule.maxPaired; m++) for (let k = 0; k <= m; k++) {
      const t = signTest(k, m - k, 'greater');
      if (t > level + 1e-12 && t < next) next = t;
    }
    assert.ok(scheduleFalseAdmissionRate(rule, next) > rule.alpha, `level ${next} would give ${scheduleFalseAdmissionRate(rule, next)}`);
    // The loop's look is the rule's look: the parent pair's environment and the others add up to playsPerLook.
    assert.equal(probationRules.parentEnvPlays + probationRules.otherEnvironments * probationRules.otherEnvPlays, rule.playsPerLook);
  });

  it('computes the worst case of a schedule as brute force over every sign sequence does (a small rule)', () => {
    const within = (nominal: number, w: number, n: number): boolean => signTest(w, n - w, 'greater') <= nominal;
    for (const futilityFrom of [1, 2]) for (const nominal of [0.0625, 0.125, 0.19, 0.3125]) {
      const small: AdmissionRule = { alpha: 0.3, maxPaired: 9, playsPerLook: 3, maxLooks: 3, futilityFrom };
      let worst = 0;
      for (let d1 = 0; d1 <= 3; d1++) for (let d2 = 0; d2 <= 3; d2++) for (let d3 = 0; d3 <= 3; d3++) {
        const m2 = d1 + d2, m3 = m2 + d3;
        let admitted = 0;
        for (let signs = 0; signs < 2 ** m3; signs++) {
          const won = (upTo: number): number => { let w = 0; for (let i = 0; i < upTo; i++) w += (signs >> i) & 1; return w; };
          const w1 = won(d1), w2 = won(m2), w3 = won(m3);
          // Each look admits, or (from futilityFrom on) stops a child with no more wins than losses, or goes on; the last admits or refuses.
          const goesOn1 = futilityFrom > 1 || w1 > d1 - w1;
          const admit = within(nominal, w1, d1) || (goesOn1 && (within(nominal, w2, m2) || (w2 > m2 - w2 && within(nominal, w3, m3))));
          if (admit) admitted += 2 ** -m3;
        }
        worst = Math.max(worst, admitted);
      }
      assert.ok(Math.abs(scheduleFalseAdmissionRate(small, nominal) - worst) < 1e-12, `futility from ${futilityFrom}, nominal ${nominal}: ${scheduleFalseAdmissionRate(small, nominal)} vs brute force ${worst}`);
    }
  });

  it('keeps alpha over the real look schedule whatever each look\'s discordance (simulated children of no effect)', () => {
    // Each run draws its own discordance per environment and per look (the parent pair's environment 8 plays, two
    // others 4 each), from nearly never to always discordant: H0 holds play by play.
    const rng = createRng('schedule-null');
    let admitted = 0;
    for (let r = 0; r < runs; r++) {
      const run = rng.fork(`run-${r}`);
      const rates = Array.from({ length: rule.maxLooks }, () => [run.next(), run.next(), run.next()].map((x) => x * x / 2));
      let look = 0;
      const envOf = (i: number): number => (i < probationRules.parentEnvPlays ? 0 : i < probationRules.parentEnvPlays + probationRules.otherEnvPlays ? 1 : 2);
      const play = (i: number): { pWin: number; pLoss: number } => {
        const q = rates[Math.min(look, rule.maxLooks - 1)]![envOf(i)]!;
        if (i === rule.playsPerLook - 1) look++;
        return { pWin: q, pLoss: q };
      };
      if (probationOnce(rule, run, play) === 'admit') admitted++;
    }
    assert.ok(admitted / runs <= rule.alpha + slack(rule.alpha, runs), `simulated false admission ${admitted / runs}`);
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
    // A first look with more wins than losses goes on; one without is refused (futility from the first look).
    assert.equal(admissionDecision(rule, { wins: 1, losses: 0, paired: 16 }, 1).verdict, 'continue');
    assert.equal(admissionDecision(rule, { wins: 0, losses: 0, paired: 16 }, 1).verdict, 'refuse');
    const flat = admissionDecision(rule, { wins: 0, losses: 0, paired: 32 }, 2);
    assert.equal(flat.verdict, 'refuse');
    assert.equal(flat.verdict === 'refuse' && flat.why, 'no_effect');
    const undecided = admissionDecision(rule, { wins: 3, losses: 1, paired: 48 }, 3);
    assert.equal(undecided.verdict === 'refuse' && undecided.why, 'out_of_looks');
    // Six wins and no loss pass at any look (p = 1/64 below the schedule's level, 0.027), and so do 8-1 and 10-2;
    // five do not (p = 1/32). Under the every-play calibration (0.0144) six did not.
    assert.equal(admissionDecision(rule, { wins: 6, losses: 0, paired: 16 }, 1).verdict, 'admit');
    assert.equal(admissionDecision(rule, { wins: 8, losses: 1, paired: 32 }, 2).verdict, 'admit');
    assert.equal(admissionDecision(rule, { wins: 10, losses: 2, paired: 48 }, 3).verdict, 'admit');
    assert.equal(admissionDecision(rule, { wins: 5, losses: 0, paired: 16 }, 1).verdict, 'continue');
  });
});
