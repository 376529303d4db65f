// The dataset commands as a user runs them: a real `coevolve` process, exit codes, stdout and stderr.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeSyntheticRun, type SyntheticRun } from '../../../bench/datasets/syntheticRun.js';

const cliEntry = resolve('src/cli/main.ts');
// The tests run the CLI from other folders, where a bare "tsx" would not resolve.
const tsxLoader = pathToFileURL(resolve('node_modules/tsx/dist/loader.mjs')).href;

function coevolve(cwd: string, ...args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', tsxLoader, cliEntry, ...args], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

describe('coevolve curate / export / import (CLI)', function () {
  this.timeout(120_000);
  let tmp: string;
  let run: SyntheticRun;
  before(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'coevolve-cli-datasets-'));
    run = await writeSyntheticRun(join(tmp, 'runs'), { lineages: 3, childrenPerLineage: 1, rolloutsPerEnv: 2, writer: 'store' });
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('curates, exports the accepted rollouts, and refuses to overwrite the export', () => {
    const [a, b] = run.rollouts;
    let r = coevolve(tmp, 'curate', 'accept', run.dir, a!.id, b!.id, '--note', 'clean');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^accepted 2 items: rollout /);
    r = coevolve(tmp, 'curate', 'label', run.dir, 'gold', a!.id);
    assert.equal(r.code, 0, r.stderr);
    r = coevolve(tmp, 'curate', 'accept', run.dir, 'no-such-id');
    assert.equal(r.code, 1);
    assert.match(r.stderr, /has no rollout or environment named "no-such-id"/);
    r = coevolve(tmp, 'curate', 'show', run.dir);
    assert.match(r.stdout, /2 curated item\(s\): 2 accepted, 0 rejected/);

    r = coevolve(tmp, 'export', run.dir, '--format', 'chat-jsonl', '--out', 'ds', '--tag', 'gold');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^exported 1 of 12 rollouts as chat-jsonl to ds/);
    assert.ok(existsSync(join(tmp, 'ds', 'README.md')));
    const lines = ['train', 'validation', 'test'].flatMap((s) => (existsSync(join(tmp, 'ds', 'data', `${s}.jsonl`)) ? readFileSync(join(tmp, 'ds', 'data', `${s}.jsonl`), 'utf8').trim().split('\n') : []));
    assert.equal(lines.length, 1);

    r = coevolve(tmp, 'export', run.dir, '--format', 'atif', '--out', 'ds');
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^coevolve: .*ds is not empty .*--force/);
    r = coevolve(tmp, 'export', run.dir, '--format', 'xml', '--out', 'x');
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /Allowed choices are chat-jsonl, atif, harbor/);
  });

  it('exports Harbor folders and imports them back; imports fixtures with a report', () => {
    let r = coevolve(tmp, 'export', run.dir, '--format', 'harbor', '--out', 'tasks', '--filter', 'all');
    assert.equal(r.code, 0, r.stderr);
    r = coevolve(tmp, 'import', 'harbor', 'tasks', '--out', 'specs');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /6 environments imported, 0 skipped, 0 field\(s\) not mapped/);

    r = coevolve(tmp, 'import', 'harbor', resolve('test/fixtures/harbor'), '--out', 'fixture-specs', '--license', 'apache-2.0');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /2 environments imported, 4 skipped/);
    assert.match(r.stdout, /skipped .*broken-bad-toml: task\.toml does not parse at line 4/);

    r = coevolve(tmp, 'import', 'tau2', resolve('test/fixtures/tau2/broken.json'), '--out', 'users');
    assert.equal(r.code, 1, 'nothing imported');
    assert.match(r.stdout, /0 users imported, 1 skipped/);
  });
});
