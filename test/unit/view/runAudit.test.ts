import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditRunDir } from '../../../src/view/runAudit.js';

/**
 * What a sandbox could plant in a run directory (a link to a host file or folder, a dangling link, a FIFO, a socket,
 * deep in the tree), each of which `coevolve view` must refuse to serve or bundle: a run directory is served only when
 * every entry is a plain file or a directory.
 */
describe('auditRunDir: a run directory is served only when it holds nothing but files and directories', () => {
  let work: string;
  let n = 0;
  const run = (): string => {
    const dir = join(work, `run${n++}`);
    mkdirSync(join(dir, 'rollouts', 'g0000'), { recursive: true });
    mkdirSync(join(dir, 'generations'));
    writeFileSync(join(dir, 'manifest.json'), '{}');
    writeFileSync(join(dir, 'events.jsonl'), '');
    writeFileSync(join(dir, 'rollouts', 'g0000', 'a.json'), '{}');
    return dir;
  };

  before(() => {
    work = mkdtempSync(join(tmpdir(), 'coevolve-audit-'));
    writeFileSync(join(work, 'secret.txt'), 'host secret');
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it('accepts plain files, directories and hard links (a hard link is a regular file)', () => {
    const dir = run();
    linkSync(join(dir, 'rollouts', 'g0000', 'a.json'), join(dir, 'rollouts', 'g0000', 'b.json'));
    assert.equal(auditRunDir(dir), undefined);
  });

  const refused: [string, (dir: string) => void, RegExp][] = [
    ['a link to a host file, deep in the tree', (d) => symlinkSync(join(work, 'secret.txt'), join(d, 'rollouts', 'g0000', 'stolen.json')), /rollouts\/g0000\/stolen\.json is a symbolic link/],
    ['a link to a host directory', (d) => symlinkSync(work, join(d, 'generations', 'g0001.json')), /generations\/g0001\.json is a symbolic link/],
    ['a link in place of a folder', (d) => symlinkSync('/etc', join(d, 'users')), /users is a symbolic link/],
    ['a dangling link', (d) => symlinkSync(join(work, 'nothing-here'), join(d, 'events2.jsonl')), /events2\.jsonl is a symbolic link/],
    ['a relative link out of the run', (d) => symlinkSync('../../secret.txt', join(d, 'rollouts', 'up.json')), /rollouts\/up\.json is a symbolic link/],
    ['a link to a file inside the run', (d) => symlinkSync('manifest.json', join(d, 'copy.json')), /copy\.json is a symbolic link/],
    ['a FIFO', (d) => execFileSync('mkfifo', [join(d, 'rollouts', 'g0000', 'wait.json')]), /rollouts\/g0000\/wait\.json is not a regular file/],
  ];
  for (const [what, plant, says] of refused) {
    it(`refuses ${what}`, () => {
      const dir = run();
      plant(dir);
      assert.match(auditRunDir(dir) ?? '(accepted)', says);
    });
  }

  it('refuses a socket', async () => {
    const dir = run();
    const server: Server = createServer();
    await new Promise<void>((r) => server.listen(join(dir, 'generations', 'sock'), r));
    try {
      assert.match(auditRunDir(dir) ?? '(accepted)', /generations\/sock is not a regular file/);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('refuses a tree with more entries than its limit', () => {
    const dir = run();
    for (let i = 0; i < 20; i++) writeFileSync(join(dir, 'rollouts', 'g0000', `r${i}.json`), '{}');
    assert.match(auditRunDir(dir, 10) ?? '(accepted)', /more than 10 entries/);
    assert.equal(auditRunDir(dir, 100), undefined);
  });
});
