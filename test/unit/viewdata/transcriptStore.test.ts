import * as assert from 'node:assert/strict';
import { appendFileSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { runLayout } from '../../../src/store/layout.js';
import { runRecordPath } from '../../../src/store/runPaths.js';
import { RunRegistry } from '../../../src/viewdata/runRegistry.js';
import { TranscriptStore } from '../../../src/viewdata/transcriptStore.js';
import { ViewData } from '../../../src/viewdata/viewRequests.js';
import type { RolloutRow } from '../../../src/webview/protocol.js';
import { makeRun } from '../../fixtures/makeRun.js';

/** Every file of a folder with its size and modification time, to show a folder was not written. */
function snapshot(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      const st = lstatSync(p);
      out.push(`${relative(dir, p)} ${st.size} ${st.mtimeMs}`);
      if (e.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out.sort();
}

/** Appends an event to the run's log as the run writer writes it. */
function appendEvent(runDir: string, event: Record<string, unknown>): void {
  const lines = readFileSync(runLayout.events(runDir), 'utf8').trim().split('\n');
  const seq = (JSON.parse(lines.at(-1)!) as { seq: number }).seq + 1;
  appendFileSync(runLayout.events(runDir), JSON.stringify({ seq, at: new Date().toISOString(), ...event }) + '\n');
}

/** The summary the run's log holds for a rollout, with changes (a new id, a replay's new duration). */
function loggedSummary(runDir: string, id: string, change: Record<string, unknown>): Record<string, unknown> {
  for (const line of readFileSync(runLayout.events(runDir), 'utf8').trim().split('\n')) {
    const e = JSON.parse(line) as { type: string; summary?: { id: string } };
    if (e.type === 'rollout.finished' && e.summary?.id === id) return { ...e.summary, ...change };
  }
  throw new Error(`no summary of ${id}`);
}

/** The rollout file of a row, with its steps' messages replaced by `text` (as a replay or a new rollout writes it). */
function writeRollout(runDir: string, from: RolloutRow, id: string, text: string): Record<string, unknown> {
  const rec = JSON.parse(readFileSync(runRecordPath(runDir, { kind: 'rollout', generation: from.generation, id: from.id }), 'utf8')) as { steps: { message: string }[] } & Record<string, unknown>;
  const next = { ...rec, id, steps: rec.steps.map((s) => ({ ...s, message: `${s.message} ${text}` })) };
  writeFileSync(runRecordPath(runDir, { kind: 'rollout', generation: from.generation, id }), JSON.stringify(next));
  return next;
}

describe('transcript index kept between sessions (TranscriptStore): used when valid, never stale, never written through a link', () => {
  let out: string;
  let runDir: string;
  let cache: string;
  let outside: string;

  beforeEach(async function () {
    this.timeout(30_000);
    out = mkdtempSync(join(tmpdir(), 'coevolve-tstore-'));
    cache = mkdtempSync(join(tmpdir(), 'coevolve-tcache-'));
    outside = mkdtempSync(join(tmpdir(), 'coevolve-outside-'));
    runDir = await makeRun(out, { generations: 2, pairsPerGeneration: 3, k: 2, hintPlays: 0 });
  });
  afterEach(() => {
    for (const d of [out, cache, outside]) rmSync(d, { recursive: true, force: true });
  });

  /** A new session: its own registry and data layer over the same run and cache. */
  const session = (cacheDir: string | null = cache): ViewData => new ViewData(new RunRegistry(() => [out]), { transcriptCache: cacheDir });
  const search = (data: ViewData, query: string) => data.handlers['rollouts/search']({ runDir, query, limit: 1000 });
  const index = (data: ViewData) => data.transcriptIndex(data.runs.get(runDir));
  const summary = (hits: { row: { id: string }; stepId: number; matches: number }[]) => hits.map((h) => `${h.row.id}:${h.stepId}:${h.matches}`);

  it('a new session answers from the stored index without reading a rollout file, the same as reading them all', async () => {
    const first = session();
    const want = await search(first, 'e');
    await index(first).settled();
    assert.ok(want.total > 0);
    assert.equal(index(first).stats.fromStore, 0);
    assert.equal(readdirSync(cache).filter((n) => n.endsWith('.jsonl')).length, 1, 'one index file for the run');

    const second = session();
    const got = await search(second, 'e');
    const rows = second.rows(second.runs.get(runDir));
    assert.equal(index(second).stats.fromStore, rows.length, 'every rollout from the store');
    assert.deepEqual(summary(got.hits), summary(want.hits));
    assert.equal(got.total, want.total);
    // And the same as a session that keeps nothing.
    const none = await search(session(null), 'e');
    assert.deepEqual(summary(none.hits), summary(want.hits));
  });

  it('is not stale when the run grows, a rollout is played again, or a rollout file changes', async () => {
    const first = session();
    await search(first, 'e');
    await index(first).settled();
    const rows = first.rows(first.runs.get(runDir));
    const [a, b, c] = rows;
    // Grows: a new rollout (file, then its event), whose text nothing stored has.
    writeRollout(runDir, a!, 'grown-1', 'zebracorn');
    appendEvent(runDir, { type: 'rollout.finished', summary: loggedSummary(runDir, a!.id, { id: 'grown-1' }) });
    // Played again (resume after a damaged file): a new file under the same id, and a later summary for it.
    writeRollout(runDir, b!, b!.id, 'quaggasong');
    appendEvent(runDir, { type: 'rollout.finished', summary: loggedSummary(runDir, b!.id, { durationMs: b!.durationMs + 1 }) });
    // Changed in place, no event (not what the writer does, but a run directory may come from anywhere).
    writeRollout(runDir, c!, c!.id, 'okapisong');

    const second = session();
    assert.deepEqual((await search(second, 'zebracorn')).hits.map((h) => h.row.id), ['grown-1']);
    assert.deepEqual((await search(second, 'quaggasong')).hits.map((h) => h.row.id), [b!.id]);
    assert.equal(index(second).stats.fromStore, rows.length - 1, 'all but the replayed rollout taken from the store');
    // A file changed in place keeps its summary: its stored text is used until the files are checked, after the texts.
    await index(second).settled();
    assert.deepEqual((await search(second, 'okapisong')).hits.map((h) => h.row.id), [c!.id]);

    // The file was rewritten without the stale lines: a third session reads every rollout from it.
    await index(second).settled();
    const third = session();
    assert.deepEqual((await search(third, 'quaggasong')).hits.map((h) => h.row.id), [b!.id]);
    assert.equal(index(third).stats.fromStore, rows.length + 1);
  });

  it('a live run: rollouts that finish after the index was built are searched on the next query', async () => {
    const data = session();
    await search(data, 'exit');
    const [a] = data.rows(data.runs.get(runDir));
    writeRollout(runDir, a!, 'late-1', 'narwhalsong');
    appendEvent(runDir, { type: 'rollout.finished', summary: loggedSummary(runDir, a!.id, { id: 'late-1' }) });
    data.runs.get(runDir).refresh();
    assert.deepEqual((await search(data, 'narwhalsong')).hits.map((h) => h.row.id), ['late-1']);
    await index(data).settled();
    assert.deepEqual((await search(session(), 'narwhalsong')).hits.map((h) => h.row.id), ['late-1'], 'and kept for the next session');
  });

  it('writes nothing inside the run directory, and follows no link planted at the index file or in place of the cache folder', async () => {
    const before = snapshot(runDir);
    const first = session();
    const want = await search(first, 'e');
    await index(first).settled();
    assert.deepEqual(snapshot(runDir), before, 'the run directory is not written');

    // A link at the index file's name, to a file outside: the next write replaces the link, the target is untouched.
    const target = join(outside, 'victim.txt');
    writeFileSync(target, 'do not touch\n');
    const real = readdirSync(cache).find((n) => n.endsWith('.jsonl'))!;
    // The planted link names what the real file held, so a reader that followed it would find a valid index.
    const planted = readFileSync(join(cache, real), 'utf8');
    writeFileSync(join(outside, 'planted.jsonl'), planted);
    rmSync(join(cache, real));
    symlinkSync(join(outside, 'planted.jsonl'), join(cache, real));
    assert.equal(new TranscriptStore(cache, runDir, first.runs.get(runDir).manifest.runId).load(), undefined, 'the store does not read through the link');
    const second = session();
    const got = await search(second, 'e');
    await index(second).settled();
    assert.equal(index(second).stats.fromStore, 0, 'the linked file is not read');
    assert.deepEqual(summary(got.hits), summary(want.hits));
    assert.ok(lstatSync(join(cache, real)).isFile(), 'the link was replaced by a file of its own');
    assert.equal(readFileSync(join(outside, 'planted.jsonl'), 'utf8'), planted, 'the planted file kept its content');

    // An index file that is a link for appending: a run that grows appends to its own file, never through a link.
    rmSync(join(cache, real));
    symlinkSync(target, join(cache, real));
    const [a] = second.rows(second.runs.get(runDir));
    writeRollout(runDir, a!, 'grown-2', 'zebracorn');
    appendEvent(runDir, { type: 'rollout.finished', summary: loggedSummary(runDir, a!.id, { id: 'grown-2' }) });
    second.runs.get(runDir).refresh();
    assert.equal((await search(second, 'zebracorn')).total, 1);
    await index(second).settled();
    assert.equal(readFileSync(target, 'utf8'), 'do not touch\n');

    // A stored rollout whose file became a link to a file outside the run: its text leaves search once the files
    // are checked, and what the link leads to is never read.
    const [, victim] = second.rows(second.runs.get(runDir));
    const secretFile = join(outside, 'secret.json');
    const rec = JSON.parse(readFileSync(runRecordPath(runDir, { kind: 'rollout', generation: victim!.generation, id: victim!.id }), 'utf8')) as { steps: { message: string }[] } & Record<string, unknown>;
    writeFileSync(secretFile, JSON.stringify({ ...rec, steps: rec.steps.map((st) => ({ ...st, message: 'secretword' })) }));
    const victimPath = runRecordPath(runDir, { kind: 'rollout', generation: victim!.generation, id: victim!.id });
    rmSync(victimPath);
    symlinkSync(secretFile, victimPath);
    const fourth = session();
    await search(fourth, 'e');
    await index(fourth).settled();
    assert.equal((await search(fourth, 'secretword')).total, 0, 'the link is not read');
    const victimHits = (await search(fourth, 'e')).hits.map((h) => h.row.id);
    assert.ok(!victimHits.includes(victim!.id), 'the linked rollout left search');

    // The cache folder itself a link: nothing is written through it, and search still answers.
    const elsewhere = join(outside, 'cache-target');
    mkdirSync(elsewhere);
    const linkedCache = join(outside, 'linked-cache');
    symlinkSync(elsewhere, linkedCache);
    const third = session(linkedCache);
    assert.equal((await search(third, 'zebracorn')).total, 1);
    await index(third).settled();
    assert.deepEqual(readdirSync(elsewhere), [], 'nothing written through the linked folder');
    assert.ok(statSync(target).isFile());
  });
});
