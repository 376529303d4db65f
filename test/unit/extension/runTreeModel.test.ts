import * as assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync, readFileSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventTail } from '../../../src/viewdata/eventTail.js';
import { LiveRun } from '../../../src/viewdata/liveRun.js';
import { childrenOf, filterChoices, generationNodes, pairNodes, rolloutNodes, runNode, runNodeOfFacts, type RunTreeNode, type TreeContext } from '../../../src/extension/runs/runTreeModel.js';
import { RunRegistry } from '../../../src/viewdata/runRegistry.js';
import { indexEvents } from '../../../src/store/runReader.js';
import { largeRunEvents, makeRun } from '../../fixtures/makeRun.js';

describe('Runs tree model', () => {
  let out: string;
  let runDir: string;
  let live: LiveRun;

  before(async function () {
    this.timeout(30_000);
    out = mkdtempSync(join(tmpdir(), 'coevolve-tree-'));
    runDir = await makeRun(out, { generations: 3, pairsPerGeneration: 4, k: 3, hintPlays: 1 });
    live = new LiveRun(runDir);
  });
  after(() => rmSync(out, { recursive: true, force: true }));

  const view = { filter: {}, sort: 'default' as const };

  it('describes the run from its index and last stored metrics', () => {
    const n = runNode(live);
    assert.equal(n.kind, 'run');
    assert.match(n.label, /^fixture · \d\d-\d\d \d\d:\d\d$/, 'the run is named by its config and its start time');
    assert.match(n.description, /^completed · 3\/3 generations · 48 rollouts · success \d+% in generation 2$/);
    assert.equal(n.icon.id, 'pass-filled');
    assert.equal(n.contextValue, 'coevolve.run.completed');
  });

  it('draws a run nobody opened from its facts as its index would, without opening it', () => {
    const registry = new RunRegistry(() => [out]);
    const rows = registry.rows();
    assert.equal(rows.length, 1);
    const row = rows[0]!;
    assert.equal(row.live, undefined, 'a finished run is not opened to be listed');
    assert.deepEqual(registry.opened(), []);
    assert.deepEqual(runNodeOfFacts(row.dir, row.manifest!, row.facts!), runNode(live), 'the same node as from the full index');
    registry.get(row.dir);
    assert.ok(registry.rows()[0]!.live, 'once opened (expanded) it is drawn from its live index');
  });

  it('builds run → generation → pair → rollout lazily with stable keys', () => {
    const gens = childrenOf(live, view, runNode(live));
    assert.deepEqual(gens.map((g) => g.label), ['Generation 0', 'Generation 1', 'Generation 2']);
    assert.match(gens[0]!.description, /success \d+% · pass\^3 \d+% · in band \d+% · design level \d\.\d · 4 pairs/);
    assert.match(gens[0]!.tooltip ?? '', /design level \d\.\d \(mean of the pairs played\): design level: the spec's own difficulty label \(0–100; built-in families use levels 1–5\), set by its knobs, not measured/);
    const pairs = childrenOf(live, view, gens[0]!);
    assert.equal(pairs.length, 4);
    assert.match(pairs[0]!.label, / × /);
    assert.match(pairs[0]!.description, /^\d\/3 passed \(\d+ %\) · (too easy|frontier|too hard)(, in band)? · design level \d/);
    const rollouts = childrenOf(live, view, pairs[0]!);
    assert.equal(rollouts.length, 4);
    assert.deepEqual(rollouts.map((r) => r.label), ['rollout 0', 'rollout 1', 'rollout 2', 'rollout 3 (hint play)']);
    assert.match(rollouts[0]!.description, /^reward \d\.\d\d · \d+ steps · [\d.]+s/);
    assert.equal(new Set([...gens, ...pairs, ...rollouts].map((n) => n.key)).size, 3 + 4 + 4);
  });

  it('marks the pair that failed every trial and the rollouts by outcome', () => {
    const pairs = pairNodes(live, view, 0);
    const hopeless = pairs.find((p) => p.kind === 'pair' && p.pairId === 'g0p1')!;
    assert.equal(hopeless.icon.id, 'circle-slash');
    const icons = new Set(rolloutNodes(live, view, 0, 'g0p1').map((r) => r.icon.id));
    assert.ok(icons.has('error') || icons.has('watch'));
  });

  it('filters: failed only, failed in every trial, in band, tag, family', () => {
    const failed = rolloutNodes(live, { filter: { failedOnly: true }, sort: 'default' }, 0, 'g0p1');
    assert.ok(failed.length > 0);
    const everyTrial = generationNodes(live, { filter: { failedEveryTrial: true }, sort: 'default' });
    for (const g of everyTrial) {
      if (g.kind !== 'generation') continue;
      for (const p of pairNodes(live, { filter: { failedEveryTrial: true }, sort: 'default' }, g.generation)) {
        const trials = rolloutNodes(live, view, g.generation, (p as { pairId: string }).pairId).filter((r) => !r.label.includes('hint'));
        assert.ok(trials.every((r) => r.icon.id !== 'pass'), `${p.label} has a passing trial`);
      }
    }
    const inBand = pairNodes(live, { filter: { inBand: true }, sort: 'default' }, 0);
    for (const p of inBand) assert.match(p.description, /in band/);
    const tagged = rolloutNodes(live, { filter: { tag: 'missed-fact' }, sort: 'default' }, 0, 'g0p1');
    assert.ok(tagged.length > 0);
    const { families, tags } = filterChoices(live);
    assert.deepEqual(families, ['config-repair', 'csv-report', 'log-triage']);
    assert.ok(tags.includes('missed-fact'));
    const csv = pairNodes(live, { filter: { family: 'csv-report' }, sort: 'default' }, 0);
    assert.ok(csv.length > 0 && csv.every((p) => p.label.startsWith('csv-report')));
  });

  it('sorts rollouts by reward, duration and cost, highest first', () => {
    for (const sort of ['reward', 'duration', 'cost'] as const) {
      const nodes = rolloutNodes(live, { filter: {}, sort }, 1, 'g1p0');
      const key = sort === 'reward' ? 'reward' : sort === 'duration' ? 'durationMs' : 'costUsd';
      const values = nodes.map((n) => live.run.rollouts.get((n as { rolloutId: string }).rolloutId)![key]);
      assert.deepEqual(values, [...values].sort((a, b) => b - a), `sorted by ${sort}`);
    }
  });

  it('handles 10,000 rollouts', () => {
    const { manifest, events } = largeRunEvents(10_000);
    const run = indexEvents('/large', manifest, events);
    const ctx: TreeContext = { run, metrics: () => undefined, env: () => undefined };
    assert.equal(run.rollouts.size, 10_000);
    const gens = generationNodes(ctx, { filter: {}, sort: 'reward' });
    assert.equal(gens.length, 40);
    const pairs = pairNodes(ctx, { filter: {}, sort: 'reward' }, 39);
    assert.equal(pairs.length, 50);
    const failed: RunTreeNode[] = generationNodes(ctx, { filter: { failedEveryTrial: true }, sort: 'default' });
    assert.ok(failed.length > 0);
  });
});

describe('EventTail', () => {
  let dir: string;
  beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'coevolve-tail-')); });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads only what was appended, keeping a torn line until it completes', () => {
    const path = join(dir, 'events.jsonl');
    writeFileSync(path, '{"seq":1,"type":"run.started"}\n{"seq":2,');
    const tail = new EventTail(path);
    assert.deepEqual(tail.read().events.map((e) => e.seq), [1]);
    assert.deepEqual(tail.read().events, []);
    appendFileSync(path, '"type":"run.resumed"}\n{"seq":3,"type":"run.finished"}\n');
    assert.deepEqual(tail.read().events.map((e) => e.seq), [2, 3]);
    assert.equal(tail.position, readFileSync(path).length);
  });

  it('starts over when the file shrinks (a repaired tail)', () => {
    const path = join(dir, 'events.jsonl');
    writeFileSync(path, '{"seq":1}\n{"seq":2}\n');
    const tail = new EventTail(path);
    tail.read();
    truncateSync(path, 10);
    const again = tail.read();
    assert.equal(again.reset, true);
    assert.deepEqual(again.events.map((e) => e.seq), [1]);
  });

  it('returns nothing for a missing file', () => {
    assert.deepEqual(new EventTail(join(dir, 'nope.jsonl')).read().events, []);
  });
});

describe('Runs tree: one vocabulary, one numbering, one classification', () => {
  let out: string;
  before(() => {
    out = mkdtempSync(join(tmpdir(), 'coevolve-tree-words-'));
  });
  after(() => rmSync(out, { recursive: true, force: true }));

  it('a stopped run shows where it stopped, with no spinner, and says resume continues it', async () => {
    const dir = await makeRun(out, { name: 'halted', generations: 2, pairsPerGeneration: 2, k: 2, hintPlays: 0, unfinished: true });
    appendFileSync(join(dir, 'events.jsonl'), `${JSON.stringify({ seq: 99_999, at: new Date().toISOString(), type: 'run.finished', status: 'stopped' })}\n`);
    const live = new LiveRun(dir);
    const gens = generationNodes(live, { filter: {}, sort: 'default' });
    const last = gens.at(-1)!;
    assert.equal(last.label, `Generation ${gens.length - 1}`, 'generations are named by their index, as in the run directory');
    assert.match(last.description, /^stopped at \d+\/\d+ rollouts \(resume continues it\)/);
    assert.notEqual(last.icon.id, 'sync~spin');
  });

  it('the pair icon and the pair text name the same class, and rollouts are listed by number', async () => {
    const dir = await makeRun(out, { name: 'classes', generations: 2, pairsPerGeneration: 4, k: 3, hintPlays: 1 });
    const live = new LiveRun(dir);
    const iconOf: Record<string, string[]> = { 'too easy': ['check-all'], 'too hard': ['circle-slash'], frontier: ['target', 'debug-stackframe-focused'] };
    for (const g of [0, 1]) {
      for (const p of pairNodes(live, { filter: {}, sort: 'default' }, g)) {
        const cls = /(too easy|too hard|frontier)/.exec(p.description)?.[1];
        assert.ok(cls, `${p.label}: ${p.description} names a class`);
        assert.ok(iconOf[cls]!.includes(p.icon.id), `${p.description}: icon ${p.icon.id}`);
        assert.ok(p.tooltip.includes(`class: ${cls}`), 'the tooltip agrees');
        if (p.icon.id === 'target') assert.match(p.description, /in band/);
        const rs = rolloutNodes(live, { filter: {}, sort: 'default' }, g, (p as { pairId: string }).pairId);
        const numbers = rs.filter((r) => !r.label.includes('hint')).map((r) => Number(/rollout (\d+)/.exec(r.label)?.[1]));
        assert.deepEqual(numbers, [...numbers].sort((a, b) => a - b));
      }
    }
  });
});
