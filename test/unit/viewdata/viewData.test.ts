import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appendCuration } from '../../../src/store/curation.js';
import { openRun } from '../../../src/store/runReader.js';
import { queryRolloutTable } from '../../../src/viewdata/rolloutTable.js';
import { runChoices, runChoicesYielding, runNamesYielding } from '../../../src/viewdata/runListing.js';
import { RunRegistry } from '../../../src/viewdata/runRegistry.js';
import { ViewData } from '../../../src/viewdata/viewRequests.js';
import { makeRun } from '../../fixtures/makeRun.js';
import { ownTranscriptCache } from '../../support/transcriptCache.js';

describe('view data layer (shared by the editor and coevolve view)', () => {
  let out: string;
  let runDir: string;
  let data: ViewData;

  before(async function () {
    this.timeout(30_000);
    out = mkdtempSync(join(tmpdir(), 'coevolve-viewdata-'));
    runDir = await makeRun(out, { generations: 3, pairsPerGeneration: 4, k: 3, hintPlays: 1 });
    await makeRun(out, { name: 'other', seed: 3, generations: 2, startedAt: '2025-11-29T09:00:00.000Z' });
    data = new ViewData(new RunRegistry(() => [out]), { transcriptCache: ownTranscriptCache() });
  });
  after(() => rmSync(out, { recursive: true, force: true }));

  it('lists runs newest first with status, generations and rollouts read from small files', async () => {
    const runs = await data.handlers['runs/list']();
    assert.deepEqual(runs.map((r) => r.name), ['fixture', 'other']);
    const index = openRun(runDir);
    const first = runs[0]!;
    assert.equal(first.status, index.status);
    assert.equal(first.generations, 3);
    assert.equal(first.rollouts, index.rollouts.size, 'rollouts counted from the stored metrics agree with the index');
    assert.equal(typeof first.lastSuccessRate, 'number');
  });

  it("gives a dashboard each generation's figures without the per-pair and per-node lists, and the lineage built from them", () => {
    const view = data.handlers['dashboard/get']({ runDir });
    const stored = openRun(runDir).generations.filter((g) => g.finished).map((g) => JSON.parse(readFileSync(join(runDir, 'generations', `g${String(g.index).padStart(4, '0')}.json`), 'utf8')) as Record<string, unknown>);
    assert.equal(view.run.generations.length, stored.length);
    for (const [i, m] of view.run.generations.entries()) {
      const file = stored[i]!;
      assert.ok(Array.isArray(file['pairsDetail']) && (file['pairsDetail'] as unknown[]).length > 0, 'the stored file has its pairs');
      for (const key of ['pairsDetail', 'lineage']) assert.equal(key in m, false, `${key} is not sent`);
      assert.ok(!(m.archiveBand && 'pairs' in m.archiveBand), 'archiveBand.pairs is not sent');
      // Every other figure is the stored one, unchanged.
      const { pairsDetail: _p, lineage: _l, archiveBand, ...rest } = file as Record<string, unknown> & { archiveBand?: Record<string, unknown> };
      const { pairs: _bp, ...band } = archiveBand ?? {};
      assert.deepEqual(m, archiveBand ? { ...rest, archiveBand: band } : rest);
    }
    // The lineage's last-played rates still come from the stored pairs (the data layer reads them, the page does not).
    const played = view.lineage.filter((n) => n.lastPlayed);
    assert.ok(played.length > 0, 'nodes carry their last generation\'s success rate');
  });

  it('answers a window of the runs list: the total, and rows only for the window, in the same order as the whole list', async () => {
    const all = await data.handlers['runs/list']();
    const first = data.handlers['runs/page']({ offset: 0, limit: 1 });
    assert.equal(first.total, all.length);
    assert.deepEqual(first.runs, all.slice(0, 1));
    const second = data.handlers['runs/page']({ offset: 1, limit: 10 });
    assert.deepEqual(second.runs, all.slice(1), 'a window past the end is cut at the end');
    assert.deepEqual(data.handlers['runs/page']({ offset: 50, limit: 10 }).runs, []);
  });

  it('lists every run as runChoices does, giving the event loop back between slices (other requests are not held)', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'coevolve-viewdata-list-'));
    try {
      for (let i = 0; i < 4; i++) await makeRun(folder, { name: `r${i}`, seed: 20 + i, generations: 1, startedAt: `2025-11-0${i + 1}T09:00:00.000Z` });
      const registry = new RunRegistry(() => [folder]);
      let ranBetween = false;
      const listing = runChoicesYielding(registry, 0);
      setImmediate(() => (ranBetween = true)); // queued behind the first slice, as an incoming request is
      const done = await listing;
      assert.equal(ranBetween, true, 'a callback queued after the list started ran before it finished');
      assert.deepEqual(done, runChoices(registry));
      assert.deepEqual(done.map((r) => r.name), ['r3', 'r2', 'r1', 'r0']);
      // A picker's list (runs/names): the same runs, names and statuses, no metrics; it yields the same way.
      ranBetween = false;
      const naming = runNamesYielding(registry, 0);
      setImmediate(() => (ranBetween = true));
      const names = await naming;
      assert.equal(ranBetween, true);
      assert.deepEqual(names, done.map(({ runDir, label, description, name, runId, startedAt, status }) => ({ runDir, label, description, name, runId, startedAt, status })));
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('answers the flat rollout table across generations: filter by score, status, family, user, tags; sort; page', () => {
    const all = data.handlers['rollouts/table']({ runDir, limit: 5000 });
    const index = openRun(runDir);
    assert.equal(all.total, index.rollouts.size);
    assert.deepEqual(all.facets.generations, [0, 1, 2]);
    assert.ok(all.facets.families.length >= 2 && all.facets.users.length >= 2);
    const high = data.handlers['rollouts/table']({ runDir, filter: { minReward: 0.5, hint: false }, sort: { key: 'reward', dir: 'desc' }, limit: 5000 });
    assert.ok(high.total > 0 && high.total < all.total);
    assert.ok(high.rows.every((r) => r.reward >= 0.5 && !r.hint));
    for (let i = 1; i < high.rows.length; i++) assert.ok(high.rows[i - 1]!.reward >= high.rows[i]!.reward, 'sorted by reward, descending');
    const fam = all.facets.families[0]!;
    const user = all.facets.users[0]!;
    const both = data.handlers['rollouts/table']({ runDir, filter: { families: [fam], users: [user], generations: [1] }, limit: 5000 });
    assert.ok(both.rows.every((r) => r.family === fam && r.userId === user && r.generation === 1));
    assert.equal(both.total, all.rows.filter((r) => r.family === fam && r.userId === user && r.generation === 1).length);
    const page = data.handlers['rollouts/table']({ runDir, offset: 10, limit: 7 });
    assert.deepEqual(page.rows.map((r) => r.id), all.rows.slice(10, 17).map((r) => r.id));
    const failed = queryRolloutTable(all.rows, { filter: { outcome: 'failed', statuses: ['terminated', 'truncated'] } });
    assert.ok(failed.rows.every((r) => !r.success && r.status !== 'error'));
  });

  it('searches the transcripts of every rollout, case-insensitively, with the matching step and a snippet', async () => {
    const r = await data.handlers['rollouts/search']({ runDir, query: 'ONERROR' });
    assert.ok(r.total > 0, 'the fixture hostile message is found');
    assert.equal(r.searched, openRun(runDir).rollouts.size);
    const hit = r.hits[0]!;
    assert.match(hit.snippet, /onerror/);
    const view = data.handlers['rollout/get']({ runDir, generation: hit.row.generation, rolloutId: hit.row.id });
    const step = view.record?.steps.find((s) => s.step_id === hit.stepId);
    assert.ok(step && /onerror/i.test(step.message), 'the hit names a step whose text has the query');
    const none = await data.handlers['rollouts/search']({ runDir, query: 'no such text anywhere 9f3a' });
    assert.equal(none.total, 0);
    const filtered = await data.handlers['rollouts/search']({ runDir, query: 'onerror', filter: { generations: [2] } });
    assert.ok(filtered.hits.every((h) => h.row.generation === 2));
  });

  it('refuses a rollout id or generation the index does not know, before any file name is made', () => {
    const any = data.handlers['rollouts/table']({ runDir, limit: 1 }).rows[0]!;
    assert.throws(() => data.handlers['rollout/get']({ runDir, generation: any.generation, rolloutId: '../../manifest' }), /is not in generation/);
    assert.throws(() => data.handlers['rollout/get']({ runDir, generation: any.generation + 1, rolloutId: any.id }), /is not in generation/);
  });
});

describe('view data layer: coevolve eval results', () => {
  let out: string;
  let runDir: string;
  let data: ViewData;
  const result = {
    evalVersion: 1, kind: 'eval', source: { kind: 'run', runDir: '/somewhere', runId: 'r1', generation: 2, paths: [] },
    agent: { id: 'agent-g2', role: 'builtin', from: 'run final agent' }, seed: 7, n: 20, band: { low: 0.4, high: 0.6 },
    rolloutIds: { prefix: 'eval-', checkedAgainst: 120, overlap: 0 },
    pairs: [{ pairId: 'p1', envId: 'log-triage-l1', userId: 'terse-ops', family: 'log-triage', plays: 20, successes: 9, success: 0.45, ci: [0.26, 0.66], inBand: true, difficulty: 0.2, runScaleDifficulty: null, errors: 0 }],
    summary: { pairs: 1, inBandShare: 1, meanAbsDistance: 0.05, meanSuccess: 0.45, difficulty: { n: 1, mean: 0.2, sd: 0, se: 0 }, runScaleDifficulty: null },
    userEffect: null,
  };

  before(async function () {
    this.timeout(30_000);
    out = mkdtempSync(join(tmpdir(), 'coevolve-viewdata-eval-'));
    runDir = await makeRun(out, { generations: 1 });
    data = new ViewData(new RunRegistry(() => [out]), { transcriptCache: ownTranscriptCache() });
  });
  after(() => rmSync(out, { recursive: true, force: true }));

  it('says there is none, reads a stored result with the versioned schema, and names a malformed one', () => {
    assert.deepEqual(data.handlers['eval/get']({ runDir }), { runDir, result: null });
    mkdirSync(join(runDir, 'artifacts'), { recursive: true });
    writeFileSync(join(runDir, 'artifacts', 'eval.json'), JSON.stringify(result));
    const ok = data.handlers['eval/get']({ runDir });
    assert.equal(ok.problem, undefined);
    assert.equal(ok.result?.pairs[0]?.successes, 9);
    writeFileSync(join(runDir, 'artifacts', 'eval.json'), JSON.stringify({ ...result, evalVersion: 9 }));
    assert.match(data.handlers['eval/get']({ runDir }).problem ?? '', /version 9/);
    rmSync(join(runDir, 'artifacts', 'eval.json'));
    writeFileSync(join(out, 'elsewhere.json'), JSON.stringify(result));
    symlinkSync(join(out, 'elsewhere.json'), join(runDir, 'artifacts', 'eval.json'));
    assert.match(data.handlers['eval/get']({ runDir }).problem ?? '', /not a regular file/);
  });
});

describe('view data layer: the dataset (curated items) of the runs a host shows', () => {
  let out: string;
  let runDir: string;
  let data: ViewData;
  let ids: { plain: string; hint: string; rejected: string; env: string };

  before(async function () {
    this.timeout(30_000);
    out = mkdtempSync(join(tmpdir(), 'coevolve-viewdata-dataset-'));
    runDir = await makeRun(out, { generations: 2, pairsPerGeneration: 2, k: 2, hintPlays: 1 });
    await makeRun(out, { name: 'uncurated', seed: 5, generations: 1, startedAt: '2025-11-29T09:00:00.000Z' });
    const rollouts = [...openRun(runDir).rollouts.values()];
    const plain = rollouts.find((r) => !r.hint && r.status !== 'error')!;
    const hint = rollouts.find((r) => r.hint)!;
    const rejected = rollouts.find((r) => !r.hint && r.id !== plain.id)!;
    ids = { plain: plain.id, hint: hint.id, rejected: rejected.id, env: plain.envId };
    await appendCuration(runDir, [
      { at: '2026-01-01T00:00:01.000Z', target: { kind: 'rollout', id: plain.id }, action: 'accept' },
      { at: '2026-01-01T00:00:02.000Z', target: { kind: 'rollout', id: hint.id }, action: 'accept' },
      { at: '2026-01-01T00:00:03.000Z', target: { kind: 'rollout', id: rejected.id }, action: 'reject', text: 'guessed' },
      { at: '2026-01-01T00:00:04.000Z', target: { kind: 'environment', id: plain.envId }, action: 'label', label: 'keep-me' },
    ]);
    data = new ViewData(new RunRegistry(() => [out]), { transcriptCache: ownTranscriptCache() });
  });
  after(() => rmSync(out, { recursive: true, force: true }));

  it('lists every curated target of every run, newest decision first, with why the export selection leaves it out', () => {
    const all = data.handlers['dataset/list']({});
    assert.equal(all.total, 4);
    assert.deepEqual(all.items.map((i) => i.target.id), [ids.env, ids.rejected, ids.hint, ids.plain]);
    const by = (id: string) => all.items.find((i) => i.target.id === id)!;
    assert.equal(by(ids.plain).exportExclusion, undefined, 'an accepted ordinary rollout is exported');
    assert.match(by(ids.hint).exportExclusion ?? '', /hint play/, 'accepted, yet a hint play stays out (the shared selection)');
    assert.equal(by(ids.rejected).exportExclusion, 'rejected by curation');
    assert.match(by(ids.env).exportExclusion ?? '', /not accepted/);
    assert.deepEqual(all.runs.map((r) => [r.runName, r.curated, r.accepted]), [['fixture', 4, 2]], 'a run without curation.jsonl is not opened');
    assert.deepEqual(all.exportArgs.args, ['--filter', 'accepted'], 'no verdict filter: the export coevolve export makes by default (accepted only), as the exclusions above say (issue 17, item 4)');
  });

  it('filters by verdict, tag and generation, and names the export arguments of the filters', () => {
    const accepted = data.handlers['dataset/list']({ filters: { verdict: 'accepted' } });
    assert.deepEqual(accepted.items.map((i) => i.target.id).sort(), [ids.hint, ids.plain].sort());
    assert.equal(accepted.matching, 2);
    assert.equal(accepted.total, 4);
    const tagged = data.handlers['dataset/list']({ filters: { tags: ['keep-me'] } });
    assert.deepEqual(tagged.items.map((i) => i.target.id), [ids.env]);
    const g = data.handlers['dataset/list']({ filters: { generations: [99] } });
    assert.equal(g.matching, 0);
    assert.ok(data.handlers['dataset/list']({ filters: { verdict: 'accepted', minReward: 0.5 } }).exportArgs.args.includes('--min-reward'));
  });

  it('sees a new decision in curation.jsonl on the next request (its items are rebuilt, not served stale)', async () => {
    await appendCuration(runDir, [{ at: '2026-01-01T00:00:05.000Z', target: { kind: 'rollout', id: ids.rejected }, action: 'accept' }]);
    const after = data.handlers['dataset/list']({ filters: { verdict: 'accepted' } });
    assert.ok(after.items.some((i) => i.target.id === ids.rejected), 'the rejected rollout, now accepted, is listed');
    const one = data.handlers['dataset/list']({ runDir: 'nope' });
    assert.equal(one.total, 0, 'a run the host does not list has no items');
  });
});

describe('view data layer: a dashboard whose compared run is gone', () => {
  let out: string;
  let runDir: string;
  let comparedDir: string;
  let data: ViewData;

  before(async function () {
    this.timeout(30_000);
    out = mkdtempSync(join(tmpdir(), 'coevolve-viewdata-compare-'));
    runDir = await makeRun(out, { generations: 1, pairsPerGeneration: 1, k: 1, hintPlays: 0 });
    comparedDir = await makeRun(out, { name: 'compared', seed: 3, generations: 1, pairsPerGeneration: 1, k: 1, hintPlays: 0, startedAt: '2025-11-29T09:00:00.000Z' });
    data = new ViewData(new RunRegistry(() => [out]), { transcriptCache: ownTranscriptCache() });
  });
  after(() => rmSync(out, { recursive: true, force: true }));

  it('shows the run and says the compared run is gone; a gone run itself still fails the whole dashboard', () => {
    const before = data.handlers['dashboard/get']({ runDir, compareRunDir: comparedDir });
    assert.equal(before.compare?.runDir, comparedDir);
    assert.equal(before.compareGone, undefined);
    rmSync(comparedDir, { recursive: true, force: true });
    const after = data.handlers['dashboard/get']({ runDir, compareRunDir: comparedDir });
    assert.equal(after.run.runDir, runDir, 'the run is shown');
    assert.equal(after.compare, null);
    assert.match(after.compareGone ?? '', /the run .*compared.* is gone: its folder was deleted or moved/);
    assert.throws(() => data.handlers['dashboard/get']({ runDir: comparedDir, compareRunDir: runDir }), /is gone: its folder was deleted or moved/);
  });
});
