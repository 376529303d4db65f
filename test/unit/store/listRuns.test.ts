// listRuns reads a run's manifest again only when its file changed: the Runs tree lists the runs folders on every
// refresh (a live run refreshes it every few hundred milliseconds), and each listing read and schema-checked every
// manifest. The reads are counted on node:fs's own openSync (test/support/fsCalls.ts), so the old code is measured too.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runConfigSchema } from '../../../src/core/spec/run.js';
import { runLayout } from '../../../src/store/layout.js';
import { listRuns, readManifest } from '../../../src/store/runReader.js';
import { RunWriter } from '../../../src/store/runWriter.js';
import { fsCalls } from '../../support/fsCalls.js';

/** The manifest files `fn` opens. */
const manifestOpens = (fn: () => void): string[] => fsCalls('openSync', fn).filter((p) => p.endsWith('manifest.json'));

describe('listRuns', () => {
  let out: string;
  const config = runConfigSchema.parse({ apiVersion: 'coevolve/v1', kind: 'Run', name: 'ls', population: { builtinFamilies: ['x'] } });
  before(async () => {
    out = mkdtempSync(join(tmpdir(), 'coevolve-listruns-'));
    for (let i = 0; i < 6; i++) {
      const w = RunWriter.create(out, { runId: `run-${i}`, name: `ls-${i}`, seed: i, toolVersion: 't', startedAt: `2026-01-0${i + 1}T00:00:00.000Z`, config, roles: {} });
      await w.close();
    }
  });
  after(() => rmSync(out, { recursive: true, force: true }));

  it('reads each manifest once over repeated listings, newest first', () => {
    const first = manifestOpens(() => assert.deepEqual(listRuns(out).map((r) => r.manifest.name), ['ls-5', 'ls-4', 'ls-3', 'ls-2', 'ls-1', 'ls-0']));
    assert.ok(first.length <= 6, `first listing: ${first.length} manifest reads`);
    const again = manifestOpens(() => {
      for (let i = 0; i < 10; i++) assert.equal(listRuns(out).length, 6);
    });
    assert.equal(again.length, 0, `10 more listings read ${again.length} manifests`);
  });

  it('reads a manifest again when its file changed, and only that one', () => {
    const dir = listRuns(out).find((r) => r.manifest.name === 'ls-2')!.dir;
    const file = runLayout.manifest(dir);
    const manifest = readManifest(dir);
    writeFileSync(file, JSON.stringify({ ...manifest, name: 'renamed' }));
    utimesSync(file, new Date(), new Date(Date.now() + 5_000));
    const reads = manifestOpens(() => assert.ok(listRuns(out).some((r) => r.manifest.name === 'renamed')));
    assert.deepEqual(reads, [file]);
  });

  it('does not keep a run whose folder is gone, nor serve a manifest swapped for a link', () => {
    const runs = listRuns(out);
    rmSync(runs[0]!.dir, { recursive: true, force: true });
    assert.equal(listRuns(out).length, runs.length - 1);
    // A manifest replaced by a link to another run's: not a plain file, so it goes to readManifest as it always did.
    const victim = listRuns(out)[0]!;
    const other = listRuns(out)[1]!;
    rmSync(runLayout.manifest(victim.dir));
    symlinkSync(runLayout.manifest(other.dir), runLayout.manifest(victim.dir));
    let fromReader: string;
    try {
      fromReader = readManifest(victim.dir).name;
    } catch {
      fromReader = 'refused';
    }
    const listed = listRuns(out).find((r) => r.dir === victim.dir);
    assert.equal(listed?.manifest.name ?? 'refused', fromReader, 'the listing says what readManifest says of a linked manifest');
    assert.notEqual(listed?.manifest.name, victim.manifest.name, 'the cached manifest of the replaced file is not served');
  });
});
