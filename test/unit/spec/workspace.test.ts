import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { crossFileProblems } from '../../../src/core/spec/workspaceRules.js';
import { parseSpecText } from '../../../src/core/spec/parse.js';
import { findSpecFiles, validateFiles, type ListFolder } from '../../../src/specs/workspace.js';

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

describe('searching a folder that other processes change (a shared /tmp)', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'coevolve-vanish-'));
    mkdirSync(join(root, 'stays'));
    mkdirSync(join(root, 'goes', 'deep'), { recursive: true });
    writeFileSync(join(root, 'stays', 'a.env.yaml'), 'apiVersion: coevolve/v1\nkind: Environment\n');
    writeFileSync(join(root, 'goes', 'deep', 'b.env.yaml'), 'x');
    writeFileSync(join(root, 'late.env.yaml'), 'x');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** Lists for real, and removes `victim` from the disk right after `parent` was listed (before it is walked). */
  const removingAfter = (parent: string, victim: string): ListFolder => async (folder) => {
    const entries = await readdir(folder, { withFileTypes: true });
    if (folder === parent) rmSync(victim, { recursive: true, force: true });
    return entries;
  };

  it('a subfolder removed after its parent was listed is skipped, not reported as a raw ENOENT', async () => {
    const listFolder = removingAfter(root, join(root, 'goes'));
    // Without the skip this is "cannot search this folder: ENOENT: no such file or directory, scandir '…/goes'".
    assert.deepEqual((await findSpecFiles(root, listFolder)).map((f) => relative(root, f)), ['late.env.yaml', 'stays/a.env.yaml']);
    rmSync(join(root, 'goes'), { recursive: true, force: true });
    mkdirSync(join(root, 'goes', 'deep'), { recursive: true });
    const result = await validateFiles([root], { listFolder: removingAfter(root, join(root, 'goes')) });
    assert.ok(!result.problems.some((p) => p.message.includes('ENOENT') || p.message.includes('cannot search')), JSON.stringify(result.problems));
  });

  it('a spec file removed after it was found is dropped; one given by name or a dangling link is still reported', async () => {
    symlinkSync(join(root, 'nowhere.env.yaml'), join(root, 'dangling.env.yaml'));
    const listFolder = removingAfter(join(root, 'stays'), join(root, 'late.env.yaml'));
    const result = await validateFiles([root], { listFolder });
    assert.ok(!result.files.includes(join(root, 'late.env.yaml')));
    assert.ok(!result.problems.some((p) => p.file === join(root, 'late.env.yaml')), JSON.stringify(result.problems));
    assert.ok(result.problems.some((p) => p.file === join(root, 'dangling.env.yaml') && p.message.startsWith('cannot read the file')));
    rmSync(join(root, 'stays', 'a.env.yaml'));
    const named = await validateFiles([join(root, 'stays', 'a.env.yaml')]);
    assert.deepEqual(named.problems.map((p) => p.message), ['no such file or folder']);
  });

  it('the folder asked for must still be listable: its own disappearance is an error', async () => {
    const removeThenList: ListFolder = async (f) => {
      rmSync(f, { recursive: true, force: true });
      return readdir(f, { withFileTypes: true });
    };
    await assert.rejects(findSpecFiles(join(root, 'goes'), removeThenList), /ENOENT/);
  });
});
