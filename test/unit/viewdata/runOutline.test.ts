import * as assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dashboardView } from '../../../src/viewdata/dashboardView.js';
import { LiveRun } from '../../../src/viewdata/liveRun.js';
import { RunOutline, isRolloutLine } from '../../../src/viewdata/runOutline.js';
import { RunRegistry } from '../../../src/viewdata/runRegistry.js';
import { ViewData } from '../../../src/viewdata/viewRequests.js';
import { makeRun } from '../../fixtures/makeRun.js';
import { ownTranscriptCache } from '../../support/transcriptCache.js';

/**
 * The dashboard's outline of a run (its event log without rollout lines, read before JSON.parse) must draw exactly
 * the dashboard the whole index draws, while the run is written and after, and must not open the run.
 */
describe('RunOutline: the dashboard of a run without reading its rollout events', () => {
  let out: string;
  let runDir: string;
  let lines: string[];

  before(async function () {
    this.timeout(30_000);
    out = mkdtempSync(join(tmpdir(), 'coevolve-outline-'));
    runDir = await makeRun(out, { generations: 3, pairsPerGeneration: 4, k: 3, hintPlays: 1 });
    lines = readFileSync(join(runDir, 'events.jsonl'), 'utf8').trim().split('\n');
  });
  after(() => rmSync(out, { recursive: true, force: true }));

  it('skips exactly the rollout lines the run writer writes, and nothing else', () => {
    const rolloutTypes = lines.filter((l) => (JSON.parse(l) as { type: string }).type.startsWith('rollout.'));
    assert.ok(rolloutTypes.length > 20, 'the fixture has rollout events');
    assert.deepEqual(lines.filter(isRolloutLine), rolloutTypes);
    // Only an anchored, top-level type counts: a rollout id or a reason naming "rollout." elsewhere does not.
    assert.equal(isRolloutLine('{"seq":3,"at":"2025-01-01T00:00:00.000Z","type":"spec.retired","kind":"environment","id":"x","reason":"\\"type\\":\\"rollout.finished\\""}'), false);
    assert.equal(isRolloutLine('{"type":"rollout.finished","seq":3,"at":"x"}'), false, 'another key order is parsed in full');
    assert.equal(isRolloutLine(' {"seq":3,"at":"x","type":"rollout.finished"}'), false);
  });

  it('draws the same dashboard as the whole index, with no rollout read', () => {
    const outline = new RunOutline(runDir);
    const live = new LiveRun(runDir);
    assert.equal(outline.run.rollouts.size, 0, 'no rollout event was parsed');
    assert.ok(live.run.rollouts.size > 20);
    assert.deepEqual(dashboardView(outline, undefined), dashboardView(live, undefined));
    assert.ok(dashboardView(outline, undefined).run.generations.length === 3 && dashboardView(outline, undefined).lineage.some((n) => n.name), 'metrics and spec names are there');
  });

  it('follows a run being written: new generations, specs and a changed status appear on refresh, and a repaired log is read again', async () => {
    const dir = join(out, 'growing');
    // The fixture's log cut after its first generation finished, then the rest appended in two steps.
    const cut = lines.findIndex((l) => l.includes('"type":"generation.finished"')) + 1;
    const { cpSync } = await import('node:fs');
    cpSync(runDir, dir, { recursive: true });
    writeFileSync(join(dir, 'events.jsonl'), `${lines.slice(0, cut).join('\n')}\n`);
    const outline = new RunOutline(dir);
    const same = (): void => assert.deepEqual(dashboardView(outline, undefined), dashboardView(new LiveRun(dir), undefined));
    same();
    assert.equal(dashboardView(outline, undefined).run.generations.length, 1);
    const mid = Math.floor((cut + lines.length) / 2);
    // A torn line (a write in progress) is kept until its newline arrives.
    const torn = lines[mid]!;
    appendFileSync(join(dir, 'events.jsonl'), `${lines.slice(cut, mid).join('\n')}\n${torn.slice(0, 20)}`);
    outline.refresh();
    appendFileSync(join(dir, 'events.jsonl'), `${torn.slice(20)}\n`);
    outline.refresh();
    same();
    appendFileSync(join(dir, 'events.jsonl'), `${lines.slice(mid + 1).join('\n')}\n`);
    outline.refresh();
    same();
    assert.equal(dashboardView(outline, undefined).run.generations.length, 3);
    assert.equal(outline.run.status, 'completed');
    // The next writer repaired the log (it shrank): the outline starts over and forgets what it had cached.
    writeFileSync(join(dir, 'events.jsonl'), `${lines.slice(0, cut).join('\n')}\n`);
    outline.refresh();
    same();
    assert.equal(dashboardView(outline, undefined).run.generations.length, 1);
  });

  it('dashboard/get reads the outline of a run nobody opened (it stays unopened), and the live index once it is open', () => {
    const registry = new RunRegistry(() => [out]);
    const data = new ViewData(registry, { transcriptCache: ownTranscriptCache() });
    const view = data.handlers['dashboard/get']({ runDir });
    assert.equal(registry.isOpen(runDir), false, 'the dashboard did not open the run');
    assert.deepEqual(view, dashboardView(new LiveRun(runDir), undefined));
    data.handlers['rollouts/table']({ runDir });
    assert.equal(registry.isOpen(runDir), true);
    assert.equal(data.dashboardSource(runDir), registry.get(runDir), 'an open run is read from its live index');
    assert.deepEqual(data.handlers['dashboard/get']({ runDir }), view);
  });
});
