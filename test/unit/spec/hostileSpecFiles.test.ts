// Issue 11, item 6: `validate` on a link to /dev/zero grew to 4 GB of memory; on a FIFO it blocked forever.
// The built CLI runs in a child with a time limit and a small heap, so a regression fails here instead of hanging.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runValidate } from '../../../src/cli/commands/validate.js';

const builtCli = join(__dirname, '../../../dist/cli.js');

function validateInChild(args: string[], cwd: string): { status: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['--max-old-space-size=256', builtCli, 'validate', ...args], { cwd, encoding: 'utf8', timeout: 15_000 });
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

describe('spec readers refuse what is not a regular file (issue 11, item 6)', () => {
  let tmp: string;
  beforeEach(() => { tmp = mkdtempSync(join(tmpdir(), 'coevolve-hostile-spec-')); });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  it('a link to /dev/zero named as a spec: refused at once, the file named, exit 1', () => {
    symlinkSync('/dev/zero', join(tmp, 'zero.env.yaml'));
    const r = validateInChild(['zero.env.yaml'], tmp);
    assert.equal(r.signal, null, `validate was killed (${r.signal}): it hung or ran out of memory`);
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stdout, /^zero\.env\.yaml:1:1: error: .*not a regular file \(a character device\)/m);
  });

  it('a FIFO named as a spec: refused without blocking', () => {
    const fifo = join(tmp, 'pipe.env.yaml');
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0, 'mkfifo');
    const r = validateInChild(['pipe.env.yaml'], tmp);
    assert.equal(r.signal, null, `validate was killed (${r.signal}): it blocked on the FIFO`);
    assert.equal(r.status, 1);
    assert.match(r.stdout, /^pipe\.env\.yaml:1:1: error: .*not a regular file \(a FIFO\)/m);
  });

  it('a folder holding a /dev/zero link and a FIFO under spec names: both refused, the real spec still checked', async () => {
    symlinkSync('/dev/zero', join(tmp, 'zero.env.yaml'));
    spawnSync('mkfifo', [join(tmp, 'pipe.user.yaml')]);
    writeFileSync(join(tmp, 'ok.user.yaml'), 'apiVersion: coevolve/v1\nkind: User\nid: ok\npersona: { name: Ok }\n');
    const r = validateInChild(['.'], tmp);
    assert.equal(r.signal, null, `validate was killed (${r.signal})`);
    assert.match(r.stdout, /zero\.env\.yaml:1:1: error: .*not a regular file/);
    assert.match(r.stdout, /pipe\.user\.yaml:1:1: error: .*not a regular file/);
    assert.doesNotMatch(r.stdout, /ok\.user\.yaml/);
  });

  it('a sparse 3 GB spec file: refused by its size before any byte is read', async () => {
    const big = join(tmp, 'big.env.yaml');
    writeFileSync(big, '');
    truncateSync(big, 3 * 1024 ** 3);
    let out = '';
    const code = await runValidate(['big.env.yaml'], {}, { out: (t) => { out += t; }, cwd: tmp });
    assert.equal(code, 1);
    assert.match(out, /^big\.env\.yaml:1:1: error: file is 3072 MiB, larger than the 4 MiB limit for a spec file/m);
  });
});
