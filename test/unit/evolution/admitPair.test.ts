// Admission makes each pairing once. Plans are made and screened before any is admitted, so two plans of one
// generation can end in the same pairing (a new pairing planned as a repair, and a move that remade an archived
// environment for the same user); `Archive.addPair` returns the existing pair for a known combination, and the second
// plan was counted as a second admitted child with a second fresh entry for one pair.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Archive } from '../../../src/core/evolution/archive.js';
import { admitPair } from '../../../src/core/evolution/children.js';
import { environmentFingerprint } from '../../../src/core/evolution/fingerprint.js';
import { parseSpecText } from '../../../src/core/spec/parse.js';
import { environmentSpecSchema } from '../../../src/core/spec/environment.js';
import { userProfileSchema } from '../../../src/core/spec/user.js';

function archive(): Archive {
  const a = new Archive();
  for (const id of ['u0', 'u1']) a.addUser(userProfileSchema.parse({ apiVersion: 'coevolve/v1', kind: 'User', id, persona: { name: id } }));
  const seed = parseSpecText(readFileSync(resolve('test/fixtures/specs/valid/minimal.env.yaml'), 'utf8'), 'minimal.env.yaml');
  a.addEnv({ ...environmentSpecSchema.parse(seed.spec), id: 'e0' });
  a.addPair('e0', 'u0', 'seed');
  return a;
}

describe('admission of a pairing', () => {
  it('admits the same new pairing once when two plans of a generation make it', () => {
    const a = archive();
    const fingerprints = new Set([...a.envs.values()].map(environmentFingerprint));
    const first = admitPair(a, { kind: 'pair', envId: 'e0', userId: 'u1' }, fingerprints);
    const second = admitPair(a, { kind: 'pair', envId: 'e0', userId: 'u1' }, fingerprints);
    assert.ok('pair' in first, 'the first plan makes the pairing');
    assert.ok('refused' in second, `the second plan is refused, not admitted again as ${'pair' in second ? second.pair.pairId : ''}`);
    assert.equal([...a.pairs.values()].filter((p) => p.envId === 'e0' && p.userId === 'u1').length, 1);
  });

  it('refuses an environment child that remade an archived task already paired with its user', () => {
    const a = archive();
    const fingerprints = new Set([...a.envs.values()].map(environmentFingerprint));
    const same = { ...a.envs.get('e0')!, id: 'e0-again' };
    const r = admitPair(a, { kind: 'environment', spec: same, userId: 'u0' }, fingerprints);
    assert.ok('refused' in r);
    const other = admitPair(a, { kind: 'environment', spec: same, userId: 'u1' }, fingerprints);
    assert.ok('pair' in other && other.pair.envId === 'e0', 'the remade task with another user is a new pairing of the archived environment');
    assert.equal(a.envs.has('e0-again'), false);
  });
});
