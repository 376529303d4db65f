// Which user child the planner makes: among user moves predicted near the band's centre, the one predicted to cost
// its parent's pair the most. A small move from a pair at 0.5 lands nearer the centre than a large move from a pair
// the parent wins, but a user child is admitted only when its paired plays show it harder, and a play can only be
// lost where the parent wins: the loop's small moves went 0-0 in 16 paired plays.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Archive } from '../../../src/core/evolution/archive.js';
import { buildFrontierModel } from '../../../src/core/evolution/frontierModel.js';
import { planChildren, userNear, type ChildPlan } from '../../../src/core/evolution/steering.js';
import { logistic } from '../../../src/core/metrics/distributions.js';
import type { DesignMove } from '../../../src/core/roles/ports.js';
import { environmentSpecSchema } from '../../../src/core/spec/environment.js';
import { parseSpecText } from '../../../src/core/spec/parse.js';
import { userProfileSchema } from '../../../src/core/spec/user.js';

const band = { low: 0.4, high: 0.6, ramp: 0.25 };
const userMoves: DesignMove[] = [
  { id: 'harder:small', direction: 'harder', description: 'a small step', expectedEffect: 0.05 },
  { id: 'harder:big', direction: 'harder', description: 'a large step', expectedEffect: 1.5 },
];

function archive(): Archive {
  const a = new Archive();
  a.ledger.agents.push({ id: 'agent', parent: null });
  a.addUser(userProfileSchema.parse({ apiVersion: 'coevolve/v1', kind: 'User', id: 'u0', persona: { name: 'Sam' } }));
  const seed = environmentSpecSchema.parse(parseSpecText(readFileSync(resolve('test/fixtures/specs/valid/minimal.env.yaml'), 'utf8'), 'minimal.env.yaml').spec);
  a.addEnv({ ...seed, id: 'easy' });
  a.addEnv({ ...seed, id: 'even' });
  a.addOutcomes(a.addPair('easy', 'u0', 'seed'), 'agent', 14, 16);
  a.addOutcomes(a.addPair('even', 'u0', 'seed'), 'agent', 8, 16);
  return a;
}

describe('the user slot', () => {
  it('goes to the user move near the centre that costs its parent pair the most, not to the one nearest the centre', () => {
    const a = archive();
    const model = buildFrontierModel(a, 'agent', band);
    const plans = planChildren({
      pairs: [...a.pairs.values()], envs: a.envs, users: a.users, excludedEnvs: new Set(), fit: model.fit, agentId: 'agent',
      inBand: () => false, userRoot: model.userRoot, envMoves: () => [], userMoves: () => userMoves, effectOf: model.moveEffect,
      tried: () => false, count: 1, maxUserChildren: 1, maxRepairs: 0, centre: 0.5,
    });
    const user = plans.filter((p): p is Extract<ChildPlan, { kind: 'user' }> => p.kind === 'user');
    assert.equal(user.length, 1);
    // The conclusive setting: both candidates are near the centre, and the small one is nearer.
    const theta = model.fit.agents.get('agent')!.value, u = model.fit.users.get('u0')!.value;
    const predict = (env: string, effect: number): number => logistic(theta - model.fit.environments.get(env)!.value - u - effect);
    const big = predict('easy', 1.5), small = predict('even', 0.05);
    assert.ok(Math.abs(big - 0.5) <= userNear && Math.abs(small - 0.5) < Math.abs(big - 0.5), `big ${big}, small ${small}`);
    assert.deepEqual([user[0]!.parent.envId, user[0]!.move.id], ['easy', 'harder:big']);
  });
});
