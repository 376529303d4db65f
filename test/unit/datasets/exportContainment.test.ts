// Issue 11, item 5 (exports write only under --out): every export format against a hostile run directory and a
// hostile --out. The run's environment files name paths the schema lets through but that are not canonical
// ("./test.sh" is tests/test.sh, the trust-rule wrapper of the exported task; "x" and "./x" are one file), and an
// --out replaced with --force holds links planted where the export writes. Nothing may be written outside --out,
// no link followed, no exported file replaced by another.
import assert from 'node:assert/strict';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeRun } from '../../fixtures/makeRun.js';
import { listTree } from '../../support/fileTree.js';
import { exportFormats, exportRun } from '../../../src/datasets/exportRun.js';
import { runLayout } from '../../../src/store/layout.js';

describe('exports write only under --out, follow no link, let no file replace another (issue 11, item 5)', function () {
  this.timeout(60_000);
  let tmp: string;
  let dir: string;
  before(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'coevolve-export-contain-'));
    dir = await makeRun(join(tmp, 'runs'), { generations: 1, pairsPerGeneration: 3, k: 2 });
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  function plantEnvironment(id: string, edit: (env: { sandbox: { files: unknown[] }; verifier: { files: unknown[] } }) => void): void {
    const base = JSON.parse(readFileSync(runLayout.environment(dir, 'log-triage-l1'), 'utf8'));
    const env = { ...base, id, lineage: { ...base.lineage, parent: null } };
    edit(env);
    writeFileSync(runLayout.environment(dir, id), JSON.stringify(env));
  }

  it('harbor: "./test.sh" cannot replace the trust-rule wrapper, "x//verify.sh" and a file that is the folder of another are refused, "x" and "./x" never both written', async () => {
    plantEnvironment('evil-wrapper', (e) => { e.verifier.files.push({ path: './test.sh', content: '#!/bin/sh\necho 1 > /logs/verifier/reward.txt\n', mode: '755' }); });
    plantEnvironment('evil-twins', (e) => { e.sandbox.files.push({ path: 'twin.txt', content: 'first' }, { path: './twin.txt', content: 'second' }); });
    plantEnvironment('evil-nested', (e) => { e.sandbox.files.push({ path: 'a', content: 'file' }, { path: 'a/b', content: 'under a file' }); });
    plantEnvironment('evil-slashes', (e) => { e.verifier.files.push({ path: 'x//verify.sh', content: 'odd' }); });
    const out = join(tmp, 'harbor');
    let r: Awaited<ReturnType<typeof exportRun>>;
    try {
      r = await exportRun(dir, { format: 'harbor', outDir: out, filter: 'all' });
    } finally {
      for (const id of ['evil-wrapper', 'evil-twins', 'evil-nested', 'evil-slashes']) rmSync(runLayout.environment(dir, id));
    }
    const files = listTree(out);
    for (const id of ['evil-wrapper', 'evil-twins', 'evil-nested', 'evil-slashes']) {
      assert.ok(!files.some((f) => f.startsWith(`tasks/${id}/`)), `${id} was exported: ${files.filter((f) => f.includes(id)).join(', ')}`);
      // The run reader already refuses two spellings of one path; the export refuses what the schema lets through.
      assert.match(r.warnings.join('\n'), new RegExp(`(environment ${id}|environments/${id}\\.json): .*; skipped`));
    }
    assert.equal(r.excluded['unsafe file path'], 3);
    for (const f of files.filter((x) => x.endsWith('/tests/test.sh'))) {
      assert.match(readFileSync(join(out, f), 'utf8'), /Coevolve verifier wrapper/, `${f} is the wrapper`);
    }
    assert.ok(r.exported > 0, 'the sound environments are still exported');
  });

  for (const format of exportFormats) {
    it(`${format}: --force over an --out whose data, tasks, trajectories and README.md are planted links writes nothing through them`, async () => {
      const victim = join(tmp, `victim-${format}`);
      mkdirSync(join(victim, 'train'), { recursive: true });
      writeFileSync(join(victim, 'README.md'), 'VICTIM');
      const out = join(tmp, `out-${format}`);
      mkdirSync(out);
      writeFileSync(join(out, 'keep.txt'), 'not ours');
      for (const name of ['data', 'tasks', 'trajectories']) symlinkSync(victim, join(out, name));
      symlinkSync(join(victim, 'README.md'), join(out, 'README.md'));
      const r = await exportRun(dir, { format, outDir: out, filter: 'all', force: true, includeHintPlays: true });
      assert.ok(r.exported > 0);
      assert.deepEqual(listTree(victim), ['README.md'], 'nothing written into the linked folder');
      assert.equal(readFileSync(join(victim, 'README.md'), 'utf8'), 'VICTIM');
      assert.equal(readFileSync(join(out, 'keep.txt'), 'utf8'), 'not ours');
      for (const name of ['README.md', 'data', 'tasks', 'trajectories']) {
        try {
          assert.ok(!lstatSync(join(out, name)).isSymbolicLink(), `${name} is still a link`);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        }
      }
    });
  }
});
