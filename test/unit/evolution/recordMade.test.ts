// A made child is recorded under the move as planned, not only as made: a plan of three steps whose third step was
// not available makes a two-step child, and the planner (which asks by the planned operator) planned it again every
// generation; the demo's lineage listed config-repair-h2s2f1d0t1-a575d229 as rejected in g0, g1 and g2.
import assert from 'node:assert/strict';
import { Archive, moveKey } from '../../../src/core/evolution/archive.js';
import { recordMade } from '../../../src/core/evolution/children.js';
import { buildFrontierModel } from '../../../src/core/evolution/frontierModel.js';
import { planChildren, type ChildPlan } from '../../../src/core/evolution/steering.js';
import type { DesignMove } from '../../../src/core/roles/ports.js';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseSpecText } from '../../../src/core/spec/parse.js';
import { environmentSpecSchema } from '../../../src/core/spec/environment.js';
import { userProfileSchema } from '../../../src/core/spec/user.js';

const band = { low: 0.4, high: 0.6, ramp: 0.25 };
const moves: DesignMove[] = [{ id: 'easier:distractors', description: 'fewer distractors', direction: 'easier' } as DesignMove];

function archive(): Archive {
  const a = new Archive();
  a.ledger.agents.push({ id: 'agent', parent: null });
  a.addUser(userProfileSchema.parse({ apiVersion: 'coevolve/v1', kind: 'User', id: 'u0', persona: { name: 'Sam' } }));
  const seed = parseSpecText(readFileSync(resolve('test/fixtures/specs/valid/minimal.env.yaml'), 'utf8'), 'minimal.env.yaml');
  a.addEnv({ ...environmentSpecSchema.parse(seed.spec), id: 'e0' });
  // Never solved: the planner walks it easier, several steps at once.
  a.addOutcomes(a.addPair('e0', 'u0', 'seed'), 'agent', 0, 8);
  return a;
}

function plan(a: Archive): Extract<ChildPlan, { kind: 'environment' }>[] {
  const model = buildFrontierModel(a, 'agent', band);
  return planChildren({
    pairs: [...a.pairs.values()], envs: a.envs, users: a.users, excludedEnvs: new Set(), fit: model.fit, agentId: 'agent',
    inBand: () => false, userRoot: model.userRoot, envMoves: () => moves, userMoves: () => [], effectOf: model.moveEffect,
    tried: (kind, parentId, operator) => a.ledger.made?.[moveKey(kind, parentId, operator)] !== undefined,
    count: 1, maxUserChildren: 0, maxRepairs: 0, centre: 0.5,
  }) as Extract<ChildPlan, { kind: 'environment' }>[];
}

describe('children made shorter than planned', () => {
  it('are not planned again: the plan is recorded under its planned operator as well as the one made', () => {
    const a = archive();
    const [first] = plan(a);
    assert.ok(first && first.kind === 'environment' && first.times > 1, `a multi-step plan: ${JSON.stringify(first && { times: first.times })}`);
    // The designer could make only two steps of it: the child's operator names two.
    const made = Array.from({ length: first.times - 1 }, () => first.move.id).join('+');
    recordMade(a.ledger, first, { kind: 'environment', id: 'e0-child', parent: 'e0', operator: made, accepted: false, reason: 'duplicate', predicted: first.predicted });
    const again = plan(a);
    assert.ok(!again.some((p) => p.move.id === first.move.id && p.times === first.times), 'the same plan came back');
    assert.ok(a.ledger.made?.[moveKey('environment', 'e0', made)], 'the child is also known by what it was made as');
  });
});
