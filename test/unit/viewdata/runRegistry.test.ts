import * as assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunRegistry } from '../../../src/viewdata/runRegistry.js';
import { makeRun } from '../../fixtures/makeRun.js';
import { fsCalls } from '../../support/fsCalls.js';

/** The existsSync calls `fn` makes, by path, whichever module makes them. */
const existsCalls = (fn: () => void): string[] => fsCalls('existsSync', fn);

describe('RunRegistry', () => {
  let out: string;
  let other: string;
  let template: string;

  before(async function () {
    this.timeout(30_000);
    template = await makeRun(mkdtempSync(join(tmpdir(), 'coevolve-registry-template-')), { generations: 1, pairsPerGeneration: 1, k: 1, hintPlays: 0 });
  });
  beforeEach(() => {
    out = mkdtempSync(join(tmpdir(), 'coevolve-registry-'));
    other = mkdtempSync(join(tmpdir(), 'coevolve-registry-other-'));
  });
  afterEach(() => {
    rmSync(out, { recursive: true, force: true });
    rmSync(other, { recursive: true, force: true });
  });
  after(() => rmSync(join(template, '..'), { recursive: true, force: true }));

  const copyRun = (folder: string, name: string): string => {
    const dir = join(folder, name);
    cpSync(template, dir, { recursive: true });
    return dir;
  };

  describe('runs whose folder is deleted', () => {
    it('forgets an opened run once its folder is gone: list, listed, rows and opened leave it out', () => {
      const kept = copyRun(out, 'kept');
      const doomed = copyRun(out, 'doomed');
      const registry = new RunRegistry(() => [out]);
      registry.get(doomed);
      assert.deepEqual(registry.list().map((e) => e.dir).sort(), [doomed, kept].sort());
      rmSync(doomed, { recursive: true, force: true });
      assert.deepEqual(registry.list().map((e) => e.dir), [kept]);
      assert.deepEqual(registry.listed().map((e) => e.dir), [kept]);
      assert.deepEqual(registry.rows().map((e) => e.dir), [kept]);
      assert.ok(!registry.opened().some((e) => e.dir === doomed));
      assert.equal(registry.isOpen(doomed), false);
    });

    it('forgets a run opened outside the output folders (a compared run) once its folder is gone, and keeps it until then', () => {
      const outside = copyRun(other, 'compared');
      const registry = new RunRegistry(() => [out]);
      registry.get(outside);
      assert.deepEqual(registry.list().map((e) => e.dir), [outside], 'an opened run stays known outside the output folders');
      rmSync(outside, { recursive: true, force: true });
      assert.deepEqual(registry.list(), []);
      assert.deepEqual(registry.listed(), []);
    });

    it('says a deleted run is gone when a viewer asks for it (get and find)', () => {
      const doomed = copyRun(out, 'doomed');
      const registry = new RunRegistry(() => [out]);
      registry.get(doomed);
      rmSync(doomed, { recursive: true, force: true });
      assert.throws(() => registry.get(doomed), /is gone: its folder was deleted or moved/);
      assert.throws(() => registry.find(doomed), /is gone: its folder was deleted or moved/);
    });

    it('tells listeners when refresh finds an opened run gone', () => {
      const doomed = copyRun(out, 'doomed');
      const registry = new RunRegistry(() => [out]);
      registry.get(doomed);
      const changed: string[] = [];
      const removed: string[] = [];
      registry.onDidChange((dir) => changed.push(dir));
      registry.onDidRemove((dir) => removed.push(dir));
      rmSync(doomed, { recursive: true, force: true });
      registry.refresh(doomed);
      assert.deepEqual(removed, [doomed]);
      assert.ok(changed.includes(doomed), 'the tree is told to redraw');
      registry.refresh(doomed);
      assert.deepEqual(removed, [doomed], 'told once');
    });

    it('forgetGone drops every opened run whose folder is gone and names them', () => {
      const a = copyRun(out, 'a');
      const b = copyRun(out, 'b');
      const registry = new RunRegistry(() => [out]);
      registry.get(a);
      registry.get(b);
      rmSync(out, { recursive: true, force: true });
      assert.deepEqual(registry.forgetGone().sort(), [a, b].sort());
      assert.deepEqual(registry.opened(), []);
    });
  });

  describe('what finding deleted runs costs', () => {
    const M = 12; // opened runs
    const N = 10; // calls of each list

    /** A registry with M runs of the output folder opened; their directories. */
    const openedRuns = (): { registry: RunRegistry; runs: string[] } => {
      const runs = Array.from({ length: M }, (_, i) => {
        const dir = join(out, `run-${i}`);
        cpSync(template, dir, { recursive: true });
        return dir;
      });
      const registry = new RunRegistry(() => [out]);
      for (const dir of runs) registry.get(dir);
      return { registry, runs };
    };
    const ofRuns = (calls: string[], runs: string[]): string[] => calls.filter((p) => runs.includes(p));

    it(`checks no opened run folder in ${N} calls of list, listed, rows and opened with ${M} runs opened`, () => {
      const { registry, runs } = openedRuns();
      const calls = existsCalls(() => {
        for (let i = 0; i < N; i++) {
          registry.list();
          registry.listed();
          registry.rows();
          registry.opened();
        }
      });
      assert.equal(ofRuns(calls, runs).length, 0, `run folders checked one by one: ${ofRuns(calls, runs).length} existsSync calls`);
      assert.equal(registry.opened().length, M);
    });

    it('forgets a deletion the watcher reports (refresh) or list() finds, checking only that run', () => {
      const { registry, runs } = openedRuns();
      const removed: string[] = [];
      registry.onDidRemove((dir) => removed.push(dir));
      const [reported, found] = runs as [string, string];
      rmSync(reported, { recursive: true, force: true });
      const onRefresh = existsCalls(() => registry.refresh(reported));
      assert.deepEqual(removed, [reported]);
      assert.deepEqual(ofRuns(onRefresh, runs), [reported], 'refresh checks its own folder only');
      rmSync(found, { recursive: true, force: true });
      const onList = existsCalls(() => assert.ok(!registry.list().some((e) => e.dir === found)));
      assert.deepEqual(removed, [reported, found], 'list() found it gone and told the viewers');
      assert.deepEqual(ofRuns(onList, runs), [found], 'only the run the folder read no longer names is checked');
      assert.equal(registry.opened().length, M - 2);
    });

    it('forgets the runs of a deleted runs folder (the watcher\'s poll) and a deleted compared run without a check per run', () => {
      const { registry, runs } = openedRuns();
      const compared = join(other, 'compared');
      cpSync(template, compared, { recursive: true });
      registry.get(compared);
      const onList = existsCalls(() => registry.list());
      assert.deepEqual(ofRuns(onList, [...runs, compared]), [compared], 'a run outside the output folders is checked, as no folder read names it');
      rmSync(out, { recursive: true, force: true });
      rmSync(compared, { recursive: true, force: true });
      let gone: string[] = [];
      const onSweep = existsCalls(() => (gone = registry.forgetGone()));
      assert.deepEqual(gone.sort(), [...runs, compared].sort());
      assert.deepEqual(ofRuns(onSweep, runs), [], 'the runs of the folder are known gone from the folder alone');
      assert.deepEqual(registry.opened(), []);
      const onGet = existsCalls(() => assert.throws(() => registry.get(runs[2]!), /is gone/));
      assert.equal(onGet.length, 1, 'a viewer asking for a deleted run costs one check');
    });
  });
});
