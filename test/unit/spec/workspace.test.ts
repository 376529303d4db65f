import assert from 'node:assert/strict';
import { join, relative } from 'node:path';
import { crossFileProblems } from '../../../src/core/spec/workspaceRules.js';
import { parseSpecText } from '../../../src/core/spec/parse.js';
import { validateFiles } from '../../../src/specs/workspace.js';

const fixtures = join(__dirname, '../../fixtures/specs');
const brief = (ps: { file: string; line: number; column: number; endLine: number; endColumn: number; message: string }[]): string[] =>
  ps.map((p) => `${relative(fixtures, p.file)}:${p.line}:${p.column}-${p.endLine}:${p.endColumn} ${p.message}`);

describe('spec rules across files', () => {
  it('a duplicate id is reported on the id of the later file, naming the first', async () => {
    const { problems } = await validateFiles(['workspace-dup-ids'], { cwd: fixtures });
    assert.deepEqual(brief(problems), [
      'workspace-dup-ids/b.env.yaml:3:5-3:12 duplicate Environment id "minimal": already used by workspace-dup-ids/a.env.yaml:3:5; give each Environment spec its own id',
    ]);
  });

  it('run population paths must exist and hold the right kind, reported on the path node', async () => {
    const { problems, files } = await validateFiles(['workspace-run-paths'], { cwd: fixtures });
    assert.equal(files.length, 3);
    assert.deepEqual(brief(problems), [
      'workspace-run-paths/paths.run.yaml:7:7-7:23 population.environments[1]: "missing.env.yaml" does not exist (paths are relative to the folder of this run config)',
      'workspace-run-paths/paths.run.yaml:8:7-8:23 population.environments[2]: "person.user.yaml" is a User spec; population.environments lists Environment specs (*.env.yaml)',
      'workspace-run-paths/paths.run.yaml:9:29-9:35 population.users[1]: "people" does not exist (paths are relative to the folder of this run config)',
    ]);
  });

  it('core takes the file system as a function, so the rules run on unsaved text too', () => {
    const run = parseSpecText('apiVersion: coevolve/v1\nkind: Run\nname: r\npopulation:\n  environments: [a.env.yaml, b.env.yaml]\n', 'ws/r.run.yaml');
    const problems = crossFileProblems([run], { resolve: (from, rel) => `ws/${rel}`, exists: (p) => p === 'ws/a.env.yaml' });
    assert.deepEqual(problems.map((p) => [p.line, p.column, p.endColumn, p.path]), [[5, 30, 40, ['population', 'environments', 1]]]);
  });

  it('missing paths and empty folders are problems, not crashes', async () => {
    const { problems } = await validateFiles(['no/such/thing.env.yaml', 'valid'], { cwd: fixtures });
    assert.deepEqual(brief(problems), ['no/such/thing.env.yaml:1:1-1:1 no such file or folder']);
    const empty = await validateFiles(['.'], { cwd: join(fixtures, 'valid', '..', '..', 'specs', 'valid', '..', 'valid') });
    assert.deepEqual(empty.problems, []);
  });
});
