import * as assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunRegistry } from '../../../src/viewdata/runRegistry.js';
import { makeRun } from '../../fixtures/makeRun.js';

describe('RunRegistry: runs whose folder is deleted', () => {
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
