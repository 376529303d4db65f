// The frontier controller's steering and duplicate check on the generic operators' moves: their ids do not start
// with "harder"/"easier", so the prior comes from each move's declared direction and expected effect; a move that
// can be made once (holding back one fact) is never planned as several steps; and children that change only the
// opening request or the command budget are new tasks, not duplicates of their parent.
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { Archive } from '../../../src/core/evolution/archive.js';
import { environmentFingerprint } from '../../../src/core/evolution/fingerprint.js';
import { buildFrontierModel, stepPrior } from '../../../src/core/evolution/frontierModel.js';
import { planChildren } from '../../../src/core/evolution/steering.js';
import type { EnvironmentSpec } from '../../../src/core/spec/environment.js';
import { userProfileSchema } from '../../../src/core/spec/user.js';
import { importHarborTasks } from '../../../src/datasets/harborImport.js';
import { applyEnvironmentMove } from '../../../src/generic/environmentOperators.js';
import { genericMoves } from '../../../src/generic/genericDesigner.js';
import { applyUserCentric } from '../../../src/generic/userCentricOperators.js';

const band = { low: 0.4, high: 0.6, ramp: 0.25 };
const imported = importHarborTasks([resolve('test/fixtures/real-tasks/harbor')]).imported;
const spec = (id: string): EnvironmentSpec => imported.find((i) => i.id === id)!.spec;
const made = (e: EnvironmentSpec, move: string): EnvironmentSpec => {
  const c = move.startsWith('user:') ? applyUserCentric(e, move) : applyEnvironmentMove(e, move);
  if (typeof c === 'string') throw new Error(c);
  return c;
};

/** An archive of one imported task and one user that the agent solved every time. */
function solvedArchive(env: EnvironmentSpec, plays: number) {
  const archive = new Archive();
  archive.ledger.agents.push({ id: 'agent', parent: null });
  archive.addUser(userProfileSchema.parse({ apiVersion: 'coevolve/v1', kind: 'User', id: 'u0', persona: { name: 'Sam' } }));
  archive.addEnv(env);
  archive.addOutcomes(archive.addPair(env.id, 'u0', 'seed'), 'agent', plays, plays);
  return archive;
}

function plan(archive: Archive, count: number) {
  const model = buildFrontierModel(archive, 'agent', band);
  return planChildren({
    pairs: [...archive.pairs.values()], envs: archive.envs, users: archive.users, excludedEnvs: new Set(), fit: model.fit, agentId: 'agent',
    inBand: () => false, userRoot: model.userRoot, envMoves: genericMoves, userMoves: () => [], effectOf: model.moveEffect,
    tried: () => false, count, maxUserChildren: 0, maxRepairs: 0, centre: 0.5,
  });
}

describe('steering over the generic operators', () => {
  it('takes the prior of each move from its declared direction and expected effect, not its id', () => {
    const moves = genericMoves(spec('config-port'));
    const holdBack = moves.find((m) => m.id.startsWith('user:hold-back:'))!;
    const looser = moves.find((m) => m.id === 'env:looser-budget' || m.id === 'env:tighter-budget')!;
    assert.ok(stepPrior(holdBack) > stepPrior(looser) && stepPrior(holdBack) > 0, `${stepPrior(holdBack)} vs ${stepPrior(looser)}`);
    assert.equal(stepPrior({ direction: 'easier' }), -0.35);
    assert.equal(stepPrior({ direction: 'harder' }), 0.35);
    const model = buildFrontierModel(solvedArchive(spec('config-port'), 4), 'agent', band);
    assert.equal(model.moveEffect('environment', 'configuration', holdBack.id, stepPrior(holdBack)), stepPrior(holdBack));
    assert.equal(model.moveEffect('environment', 'configuration', 'user:disclose:held-f1'), 0, 'without a prior, an unprefixed id keeps 0');
  });

  it('on a task the agent always solves, holds a fact back before adding distractors, and plans it as one step', () => {
    const archive = solvedArchive(spec('config-port'), 8);
    const [first] = plan(archive, 1);
    assert.ok(first && first.kind === 'environment', JSON.stringify(first));
    assert.match(first.move.id, /^user:hold-back:/);
    assert.equal(first.times, 1);
    const parent = buildFrontierModel(archive, 'agent', band).fit.predict('agent', 'config-port', 'u0');
    assert.ok(first.predicted < parent, `predicted ${first.predicted} below the parent's ${parent}`);
  });

  it('never plans more steps of a move than the parent allows', () => {
    const env = spec('config-port');
    for (const m of genericMoves(env)) if (m.id.startsWith('user:')) assert.equal(m.maxSteps, 1, m.id);
    const distractors = genericMoves(made(made(env, 'env:distractors'), 'env:distractors')).find((m) => m.id === 'env:distractors')!;
    assert.equal(distractors.maxSteps, 1, 'two of the three steps to six files are made');
  });
});

describe('duplicate check of generic children', () => {
  it('a vaguer request, a mistaken statement or a tighter budget is a new task; the same content under a new id is not', () => {
    const env = spec('config-port');
    const held = made(env, 'user:hold-back:f1');
    const fp = environmentFingerprint;
    assert.notEqual(fp(made(env, 'user:vaguer-request')), fp(env));
    assert.notEqual(fp(made(env, 'env:tighter-budget')), fp(env));
    assert.notEqual(fp(made(held, 'user:mistaken-statement:held-f1')), fp(held));
    assert.equal(fp({ ...structuredClone(held), id: 'other-id' }), fp(held));
  });
});
