import * as assert from 'node:assert/strict';
import { dirname, relative, resolve } from 'node:path';
import { SpecIndex } from '../../../src/extension/authoring/specIndex.js';
import { environmentScaffold } from '../../../src/extension/authoring/scaffolds.js';

const root = '/ws';
const index = (): SpecIndex => new SpecIndex({ resolve: (from, rel) => resolve(dirname(from), rel), existsOnDisk: () => false, display: (p) => relative(root, p) });

const run = (envPath: string): string =>
  `apiVersion: coevolve/v1\nkind: Run\nname: r\npopulation:\n  environments:\n    - ${envPath}\n`;

describe('authoring: the workspace spec index', () => {
  it('reports a run naming a missing environment file on the run, at the entry', () => {
    const ix = index();
    ix.set('/ws/a.run.yaml', run('missing.env.yaml'));
    const changed = ix.recompute();
    const problems = changed.get('/ws/a.run.yaml')!;
    assert.equal(problems.length, 1);
    assert.match(problems[0]!.message, /"missing\.env\.yaml" does not exist/);
    assert.deepEqual([problems[0]!.line, problems[0]!.column, problems[0]!.endColumn], [6, 7, 23]);
    assert.equal(ix.state('/ws/a.run.yaml'), 'errors');
  });

  it('clears the run once the environment file appears, and says which files changed', () => {
    const ix = index();
    ix.set('/ws/a.run.yaml', run('t.env.yaml'));
    ix.recompute();
    ix.set('/ws/t.env.yaml', environmentScaffold('t'));
    const changed = ix.recompute();
    assert.deepEqual(changed.get('/ws/a.run.yaml'), []);
    assert.deepEqual(changed.get('/ws/t.env.yaml'), []);
    assert.equal(ix.state('/ws/a.run.yaml'), 'valid');
    assert.equal(ix.recompute().size, 0, 'nothing changed the second time');
  });

  it('reports a duplicate id on the later file, naming the first', () => {
    const ix = index();
    ix.set('/ws/a.env.yaml', environmentScaffold('same'));
    ix.set('/ws/b.env.yaml', environmentScaffold('same'));
    ix.recompute();
    assert.deepEqual(ix.problems('/ws/a.env.yaml'), []);
    const [dup] = ix.problems('/ws/b.env.yaml');
    assert.match(dup!.message, /duplicate Environment id "same": already used by a\.env\.yaml:8:5/);
    assert.equal(dup!.line, 8);
    ix.delete('/ws/a.env.yaml');
    assert.deepEqual(ix.recompute().get('/ws/b.env.yaml'), []);
    assert.equal(ix.recompute().size, 0);
  });
});
