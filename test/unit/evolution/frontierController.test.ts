// The frontier controller against a synthetic agent of known ability: P(success) = sigmoid(θ − b − u), with moves
// whose true effect the controller is not told. From a start far from the band, the archive must converge into it
// within a stated number of generations, using the same modules the controller uses (fit, posterior, selection,
// steering, screening) in the controller's order and with the demo's play budget (8 pairs × 4 plays a generation).
import assert from 'node:assert/strict';
import { Archive, moveKey } from '../../../src/core/evolution/archive.js';
import { buildFrontierModel } from '../../../src/core/evolution/frontierModel.js';
import { capByEvidence, selectByEvidence } from '../../../src/core/evolution/frontierSelection.js';
import { planChildren } from '../../../src/core/evolution/steering.js';
import { logistic } from '../../../src/core/metrics/distributions.js';
import { pairPosterior, replayScore } from '../../../src/core/metrics/pairEvidence.js';
import { planGeneration } from '../../../src/core/evolution/plan.js';
import { runConfigSchema } from '../../../src/core/spec/run.js';
import { createRng, type Rng } from '../../../src/core/ports/rng.js';
import type { DesignMove } from '../../../src/core/roles/ports.js';
import { environmentSpecSchema, type EnvironmentSpec } from '../../../src/core/spec/environment.js';
import { userProfileSchema, type UserProfile } from '../../../src/core/spec/user.js';

const band = { low: 0.4, high: 0.6, ramp: 0.25 };
const theta = 0; // the synthetic agent's known ability
const trueStep = 0.35; // what one knob step really does to difficulty (the controller starts from ±0.5 and learns)
const convergeWithin = 8; // generations: the stated bound

function env(id: string, family: string, parent: string | null, operator: string | null, generation: number): EnvironmentSpec {
  return environmentSpecSchema.parse({
    apiVersion: 'coevolve/v1', kind: 'Environment', id, title: id, family, instruction: 'do it',
    verifier: { script: 'true' }, oracle: { script: 'true' }, user: { request: 'please', goal: 'done' },
    lineage: { parent, operator, generation },
  });
}

function user(id: string): UserProfile {
  return userProfileSchema.parse({ apiVersion: 'coevolve/v1', kind: 'User', id, persona: { name: id } });
}

const moves = (): DesignMove[] => [
  { id: 'harder:knob', direction: 'harder', knob: 'knob', description: 'one step harder' },
  { id: 'easier:knob', direction: 'easier', knob: 'knob', description: 'one step easier' },
];

interface World {
  archive: Archive;
  trueB: Map<string, number>;
  trueU: Map<string, number>;
  rng: Rng;
}

function play(w: World, envId: string, userId: string, n: number): number {
  let s = 0;
  for (let i = 0; i < n; i++) if (w.rng.next() < logistic(theta - w.trueB.get(envId)! - w.trueU.get(userId)!)) s++;
  return s;
}

const trueInBand = (w: World): number => {
  const active = w.archive.activePairs();
  const p = (e: string, u: string): number => logistic(theta - w.trueB.get(e)! - w.trueU.get(u)!);
  return active.filter((x) => p(x.envId, x.userId) >= band.low && p(x.envId, x.userId) <= band.high).length / Math.max(1, active.length);
};

/** The demo's budget: 8 pairs of k = 4 plays a generation (fresh children first, then PLR replay), 6 children screened on 4 plays. */
const budget = runConfigSchema.parse({ apiVersion: 'coevolve/v1', kind: 'Run', name: 'synthetic', population: { builtinFamilies: ['log-triage'], pairsPerGeneration: 8, childrenPerGeneration: 6 }, k: 4 });
const screeningPlays = 4;

/** One generation in the controller's order (controller.ts): plan, play, fit, children, refit, select, cap, score. */
function generation(w: World, g: number, floor: number, cap = budget.population.maxArchive): void {
  const { archive } = w;
  const played = planGeneration(archive, g, budget, w.rng.fork(`plan-${g}`));
  for (const p of played) {
    archive.addOutcomes(p, 'agent', play(w, p.envId, p.userId, budget.k), budget.k);
    p.lastPlayed = g;
  }
  archive.fresh = archive.fresh.filter((id) => !played.some((p) => p.pairId === id));
  const model = buildFrontierModel(archive, 'agent', band);
  const plans = planChildren({
    pairs: [...archive.pairs.values()], envs: archive.envs, users: archive.users, excludedEnvs: new Set(), fit: model.fit, agentId: 'agent',
    inBand: (p) => {
      const m = model.posterior.get(p.pairId)!.mean;
      return m >= band.low && m <= band.high;
    },
    userRoot: model.userRoot, envMoves: moves, userMoves: () => [], effectOf: model.moveEffect,
    tried: (kind, parentId, operator) => archive.ledger.made?.[moveKey(kind, parentId, operator)] !== undefined,
    count: budget.population.childrenPerGeneration, maxUserChildren: 0, maxRepairs: 0, centre: 0.5,
  });
  plans.forEach((plan, i) => {
    if (plan.kind !== 'environment') return;
    const parent = archive.envs.get(plan.parent.envId)!;
    const op = Array.from({ length: plan.times }, () => plan.move.id).join('+');
    const child = env(`${parent.id.split('.')[0]}.g${g}c${i}`, parent.family, parent.id, op, g + 1);
    w.trueB.set(child.id, w.trueB.get(parent.id)! + plan.times * (plan.move.direction === 'harder' ? trueStep : -trueStep));
    const s = play(w, child.id, plan.parent.userId, screeningPlays);
    const post = pairPosterior([{ age: 0, successes: s, trials: screeningPlays }], plan.predicted, band);
    const refused = post.class === 'too_easy' || post.class === 'too_hard';
    (archive.ledger.made ??= {})[moveKey('environment', parent.id, op)] = { id: child.id, verdict: refused ? 'screened_out' : 'admitted' };
    // As the controller does: screening plays are cells of the fit, never the admitted pair's own evidence, and a
    // screened-out child stays in the fit as a probe.
    archive.addCell('agent', child.id, plan.parent.userId, s, screeningPlays);
    if (refused) {
      (archive.ledger.probes ??= []).push({ kind: 'environment', id: child.id, parent: parent.id, operator: op });
      return;
    }
    archive.addEnv(child);
    archive.fresh.push(archive.addPair(child.id, plan.parent.userId, 'child').pairId);
  });
  const selection = buildFrontierModel(archive, 'agent', band);
  selectByEvidence(archive, selection, floor);
  capByEvidence(archive, selection, cap, 0.5);
  const active = archive.activePairs().length;
  const removable = active > Math.max(1, floor) || active >= cap;
  for (const p of archive.pairs.values()) p.score = replayScore(selection.posterior.get(p.pairId)!, removable);
}

/** A world whose seeds all sit at the same true difficulty, each paired with every user. */
function world(seed: string, b0: number, families: string[], users: [string, number][]): World {
  const w: World = { archive: new Archive(), trueB: new Map(), trueU: new Map(users), rng: createRng(seed) };
  w.archive.ledger.agents.push({ id: 'agent', parent: null });
  for (const [id] of users) w.archive.addUser(user(id));
  for (const f of families) {
    const e = env(`${f}-seed`, f, null, null, 0);
    w.archive.addEnv(e);
    w.trueB.set(e.id, b0);
    for (const [u] of users) w.archive.addPair(e.id, u, 'seed');
  }
  return w;
}

const seeds = Array.from({ length: 12 }, (_, i) => `conv-${i}`);
const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

describe('frontier controller against a synthetic agent of known ability', function () {
  // CPU-bound (about 2 s on a quiet machine; 12 seeds × 8 fits), so the layer's 20 s default is too tight on a loaded one.
  this.timeout(300_000);
  it(`moves archives that start far too hard (p ≈ 0.07) into the band within ${convergeWithin} generations (mean of 12 seeds)`, () => {
    const finals: number[] = [];
    const learned: number[] = [];
    for (const seed of seeds) {
      const w = world(seed, 2.5, ['fam-a', 'fam-b'], [['u0', 0], ['u1', 0.4]]);
      assert.equal(trueInBand(w), 0, 'no seed pair starts in the band');
      const floor = w.archive.activePairs().length;
      for (let g = 0; g < convergeWithin; g++) {
        generation(w, g, floor);
        assert.ok(w.archive.activePairs().length >= floor, `generation ${g}: the archive shrank below its start`);
      }
      finals.push(trueInBand(w));
      learned.push(buildFrontierModel(w.archive, 'agent', band).moveEffect('environment', 'fam-a', 'easier:knob'));
    }
    assert.ok(mean(finals) >= 0.55, `mean true in-band share of the active archives: ${mean(finals).toFixed(2)} (${finals.map((x) => x.toFixed(2)).join(' ')})`);
    // The move's step is a parameter of the fit shared by every child made with it, so it is not shrunk toward 0.
    assert.ok(Math.abs(mean(learned) + trueStep) < 0.15, `learned easier step ${mean(learned).toFixed(2)} vs true ${-trueStep}`);
  });

  it('an archive capped at its floor keeps more of its pairs in band than one left to grow (1 logit too hard, 5 generations, 12 seeds)', () => {
    // The demo's shape: seeds about 1 logit harder than the agent, 5 generations, a floor the archive may not shrink
    // below. At the cap each generation's children take the places of the played pairs least likely in band.
    const users: [string, number][] = [['u0', 0], ['u1', 0.3], ['u2', -0.3], ['u3', 0.6], ['u4', -0.2]];
    const floor = 16;
    const share = (cap: number | undefined): { inBand: number; size: number } => {
      const runs = seeds.map((s) => {
        const w = world(`cap-${s}`, 1, ['fam-a', 'fam-b', 'fam-c', 'fam-d'], users);
        for (let g = 0; g < 5; g++) generation(w, g, floor, cap);
        return { inBand: trueInBand(w), size: w.archive.activePairs().length };
      });
      return { inBand: mean(runs.map((r) => r.inBand)), size: mean(runs.map((r) => r.size)) };
    };
    const grown = share(undefined);
    const capped = share(floor);
    assert.equal(capped.size, floor, 'the capped archives hold exactly the floor');
    assert.ok(grown.size > floor + 5, `the others grow (${grown.size.toFixed(1)} pairs)`);
    // Measured: 42.2 % of 25.8 pairs grown, 55.2 % capped (other world seeds: +16, +18, +20 points).
    assert.ok(capped.inBand - grown.inBand >= 0.08, `capped ${(capped.inBand * 100).toFixed(1)} % vs grown ${(grown.inBand * 100).toFixed(1)} %`);
  });

  it('eases as readily as it hardens: archives that start far too easy converge too', () => {
    const finals = seeds.map((seed) => {
      const w = world(`easy-${seed}`, -2.5, ['fam-a', 'fam-b', 'fam-c'], [['u0', 0]]);
      const floor = w.archive.activePairs().length;
      for (let g = 0; g < convergeWithin; g++) generation(w, g, floor);
      assert.ok(w.archive.activePairs().length >= floor, 'the archive shrank below its start');
      return trueInBand(w);
    });
    assert.ok(mean(finals) >= 0.55, `mean true in-band share: ${mean(finals).toFixed(2)} (${finals.map((x) => x.toFixed(2)).join(' ')})`);
  });
});

describe('steering spreads children and learns direction-only moves', () => {
  it('spreads a generation\'s children across families when no niche has an in-band pair (not alphabetical order)', () => {
    const w = world('spread', 1, ['fam-a', 'fam-b', 'fam-c', 'fam-d'], [['u0', 0], ['u1', 0.3], ['u2', 0.6]]);
    for (const p of w.archive.activePairs()) w.archive.addOutcomes(p, 'agent', play(w, p.envId, p.userId, 6), 6);
    const model = buildFrontierModel(w.archive, 'agent', band);
    const plans = planChildren({
      pairs: [...w.archive.pairs.values()], envs: w.archive.envs, users: w.archive.users, excludedEnvs: new Set(), fit: model.fit, agentId: 'agent',
      inBand: () => false, userRoot: model.userRoot, envMoves: moves, userMoves: () => [], effectOf: model.moveEffect, tried: () => false,
      count: 4, maxUserChildren: 0, maxRepairs: 0, centre: 0.5,
    });
    const families = plans.map((p) => (p.kind === 'environment' ? w.archive.envs.get(p.parent.envId)!.family : '?'));
    assert.deepEqual([...new Set(families)].sort(), ['fam-a', 'fam-b', 'fam-c', 'fam-d']);
  });

  it('a move by direction only takes the fitted effect of the knob moves its children recorded', () => {
    const w = world('direction', 0, ['fam-a'], [['u0', 0]]);
    const seed = w.archive.envs.get('fam-a-seed')!;
    w.archive.addOutcomes(w.archive.activePairs()[0]!, 'agent', 20, 40);
    // Children of the seed made by "harder" (the role chose the knob): each 1.5 logits harder than the seed.
    for (let i = 0; i < 6; i++) {
      const child = env(`fam-a.c${i}`, 'fam-a', seed.id, 'harder:knob', 1);
      w.archive.addEnv(child);
      w.archive.addOutcomes(w.archive.addPair(child.id, 'u0', 'child'), 'agent', Math.round(40 * logistic(-1.5)), 40);
    }
    const model = buildFrontierModel(w.archive, 'agent', band);
    const direct = model.moveEffect('environment', 'fam-a', 'harder:knob');
    const byDirection = model.moveEffect('environment', 'fam-a', 'harder');
    assert.ok(direct > 1, `fitted harder:knob ${direct.toFixed(2)} (true 1.5)`);
    assert.ok(Math.abs(byDirection - direct) < 0.05, `"harder" ${byDirection.toFixed(2)} vs harder:knob ${direct.toFixed(2)}`);
    assert.equal(model.moveEffect('environment', 'fam-b', 'harder'), 0.35, 'an unseen family keeps the prior');
  });

  it('never retires or quarantines the last active pair, even with minArchive 0', () => {
    // A one-pair run whose pair is confidently too easy and whose child slot went to a user: retiring the pair left
    // the next generations with nothing to play (seen in the trainer-hook run test).
    for (const [successes, to] of [[8, 'too easy'], [0, 'too hard']] as const) {
      const w = world(`last-${to}`, 0, ['fam-a'], [['u0', 0]]);
      const only = w.archive.activePairs()[0]!;
      w.archive.addOutcomes(only, 'agent', successes, 8);
      const model = buildFrontierModel(w.archive, 'agent', band);
      assert.equal(model.posterior.get(only.pairId)!.class, to.replace(' ', '_'), `the pair is confidently ${to}`);
      assert.deepEqual(selectByEvidence(w.archive, model, 0), [], `a ${to} last pair stays`);
      assert.equal(w.archive.activePairs().length, 1);
    }
  });
  it('a full archive retires the measured pairs the model places furthest from the band, never a pair not yet measured', () => {
    const w = world('cap', 0, ['fam-a', 'fam-b', 'fam-c', 'fam-d'], [['u0', 0]]);
    const [inBand, undecided, tooHard, leaning] = w.archive.activePairs();
    const outcomes: [typeof inBand, number, number][] = [[inBand, 10, 20], [undecided, 1, 2], [tooHard, 1, 6], [leaning, 2, 6]];
    for (const [p, s, n] of outcomes) {
      w.archive.addOutcomes(p!, 'agent', s, n);
      p!.lastPlayed = 0;
    }
    w.archive.addEnv(env('fam-c.child', 'fam-c', 'fam-c-seed', 'harder:knob', 1));
    const child = w.archive.addPair('fam-c.child', 'u0', 'child');
    const model = buildFrontierModel(w.archive, 'agent', band);
    const distance = (p: typeof inBand): number => Math.abs(model.fit.predict('agent', p!.envId, p!.userId) - 0.5);
    assert.ok(distance(tooHard) > distance(leaning) && distance(leaning) > distance(undecided) && distance(leaning) > distance(inBand), 'the pairs in order of their distance from the centre');
    assert.ok(distance(child) > distance(leaning), 'the child is predicted further out than the pairs retired, and stays: it has not been played');
    const retired = capByEvidence(w.archive, model, 3, 0.5);
    assert.deepEqual(retired.map((p) => p.pairId), [tooHard!.pairId, leaning!.pairId]);
    assert.deepEqual(retired.map((p) => p.retired), ['archive_full', 'archive_full']);
    assert.deepEqual(w.archive.activePairs().map((p) => p.pairId).sort(), [inBand!.pairId, undecided!.pairId, child.pairId].sort());
    assert.deepEqual(capByEvidence(w.archive, model, 3, 0.5), [], 'within its cap the archive keeps every pair');
  });
  it('a child screened on admission is measured: the cap can retire it before its first archive play', () => {
    const w = world('cap-screened', 0, ['fam-a', 'fam-b', 'fam-c'], [['u0', 0]]);
    const [inBand, undecided, easy] = w.archive.activePairs();
    for (const [p, s, n] of [[inBand, 10, 20], [undecided, 1, 2], [easy, 5, 6]] as const) {
      w.archive.addOutcomes(p!, 'agent', s, n);
      p!.lastPlayed = 0;
    }
    // A child made for an earlier, weaker agent: the current agent won all of its screening plays.
    w.archive.addEnv(env('fam-c.child', 'fam-c', 'fam-c-seed', 'easier:knob', 1));
    const child = w.archive.addPair('fam-c.child', 'u0', 'child');
    child.screening = { agentId: 'agent', successes: 4, trials: 4 };
    w.archive.addCell('agent', child.envId, child.userId, 4, 4);
    const model = buildFrontierModel(w.archive, 'agent', band);
    const distance = (p: typeof inBand): number => Math.abs(model.fit.predict('agent', p!.envId, p!.userId) - 0.5);
    assert.ok(distance(child) > distance(easy), 'the screened child is the furthest from the centre');
    assert.deepEqual(capByEvidence(w.archive, model, 3, 0.5).map((p) => p.pairId), [child.pairId]);
  });
});
