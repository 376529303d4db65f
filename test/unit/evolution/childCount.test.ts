// How many children a generation plans: the configured count, or as many as the measured active pairs (played, or
// screened on admission: those the cap can replace) the fitted model places out of band, up to
// maxChildrenPerGeneration. After a promotion most of the archive is too easy at once, and a fixed count replaced a few
// pairs a generation: on the level-1.5 demo the archive read 40 % in band by eval after 5 generations, its mean
// success 0.65, against 52 % with the count following the pairs out of band.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Archive } from '../../../src/core/evolution/archive.js';
import { childCount } from '../../../src/core/evolution/children.js';
import { buildFrontierModel } from '../../../src/core/evolution/frontierModel.js';
import { environmentSpecSchema } from '../../../src/core/spec/environment.js';
import { parseSpecText } from '../../../src/core/spec/parse.js';
import { runConfigSchema } from '../../../src/core/spec/run.js';
import { userProfileSchema } from '../../../src/core/spec/user.js';

const band = { low: 0.4, high: 0.6, ramp: 0.25 };
const config = (population: Record<string, number>) => runConfigSchema.parse({ apiVersion: 'coevolve/v1', kind: 'Run', name: 'count', population: { builtinFamilies: ['log-triage'], childrenPerGeneration: 4, ...population } });

/**
 * `easy` played pairs the agent wins 15 of 16 times, `even` at 8 of 16, `unplayed` pairs never played, and `screened`
 * children admitted on 16 screening plays it won 15 times (in the fit's cells, not the pair's plays; never replayed).
 */
function archive(easy: number, even: number, unplayed = 0, screened = 0): Archive {
  const a = new Archive();
  a.ledger.agents.push({ id: 'agent', parent: null });
  a.addUser(userProfileSchema.parse({ apiVersion: 'coevolve/v1', kind: 'User', id: 'u0', persona: { name: 'Sam' } }));
  const seed = environmentSpecSchema.parse(parseSpecText(readFileSync(resolve('test/fixtures/specs/valid/minimal.env.yaml'), 'utf8'), 'minimal.env.yaml').spec);
  const add = (id: string, successes: number | null): void => {
    a.addEnv({ ...seed, id });
    const pair = a.addPair(id, 'u0', 'seed');
    if (successes === null) return;
    a.addOutcomes(pair, 'agent', successes, 16);
    pair.lastPlayed = 0;
  };
  for (let i = 0; i < easy; i++) add(`easy-${i}`, 15);
  for (let i = 0; i < even; i++) add(`even-${i}`, 8);
  for (let i = 0; i < unplayed; i++) add(`new-${i}`, null);
  for (let i = 0; i < screened; i++) {
    a.addEnv({ ...seed, id: `child-${i}` });
    const pair = a.addPair(`child-${i}`, 'u0', 'child');
    a.addCell('agent', pair.envId, pair.userId, 15, 16);
    pair.screening = { agentId: 'agent', successes: 15, trials: 16 };
  }
  return a;
}

describe('the number of children a generation plans', () => {
  it('follows the played pairs the model places out of band, between the configured count and the maximum', () => {
    const a = archive(12, 6);
    const model = buildFrontierModel(a, 'agent', band);
    assert.ok(model.fit.predict('agent', 'easy-0', 'u0') > band.high && model.fit.predict('agent', 'even-0', 'u0') <= band.high);
    assert.equal(childCount(a, model, config({ maxChildrenPerGeneration: 20 })), 12);
    assert.equal(childCount(a, model, config({ maxChildrenPerGeneration: 10 })), 10);
  });

  it('is the configured count without a maximum, and when few pairs are out of band', () => {
    const a = archive(12, 6);
    assert.equal(childCount(a, buildFrontierModel(a, 'agent', band), config({})), 4);
    const calm = archive(2, 10);
    assert.equal(childCount(calm, buildFrontierModel(calm, 'agent', band), config({ maxChildrenPerGeneration: 20 })), 4);
  });

  it('counts the children admitted on their screening that the model now places out of band, as the cap does', () => {
    const a = archive(5, 2, 0, 4);
    const model = buildFrontierModel(a, 'agent', band);
    assert.equal([...a.pairs.values()].filter((p) => p.lastPlayed < 0).length, 4);
    assert.ok(model.fit.predict('agent', 'child-0', 'u0') > band.high);
    assert.equal(childCount(a, model, config({ childrenPerGeneration: 1, maxChildrenPerGeneration: 20 })), 9);
  });

  it('counts neither unplayed pairs nor retired ones', () => {
    const a = archive(5, 2, 8);
    for (const p of [...a.pairs.values()].slice(0, 2)) p.retired = 'too_easy';
    assert.equal(childCount(a, buildFrontierModel(a, 'agent', band), config({ childrenPerGeneration: 1, maxChildrenPerGeneration: 20 })), 3);
  });
});
