import * as assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync, readFileSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventTail } from '../../../src/viewdata/eventTail.js';
import { LiveRun } from '../../../src/viewdata/liveRun.js';
import { childrenOf, filterChoices, generationNodes, pairNodes, rolloutNodes, runNode, type RunTreeNode, type TreeContext } from '../../../src/extension/runs/runTreeModel.js';
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
    assert.equal(n.label, 'fixture');
    assert.match(n.description, /^completed · 3 gen · 48 rollouts · success \d+%$/);
    assert.equal(n.icon.id, 'pass-filled');
    assert.equal(n.contextValue, 'coevolve.run.completed');
  });

  it('builds run → generation → pair → rollout lazily with stable keys', () => {
    const gens = childrenOf(live, view, runNode(live));
    assert.deepEqual(gens.map((g) => g.label), ['Generation 0', 'Generation 1', 'Generation 2']);
    assert.match(gens[0]!.description, /success \d+% · pass\^3 \d+% · in band \d+% · difficulty [\d.]+ · 4 pairs/);
    const pairs = childrenOf(live, view, gens[0]!);
    assert.equal(pairs.length, 4);
    assert.match(pairs[0]!.label, / × /);
    assert.match(pairs[0]!.description, /^p=\d\.\d\d · difficulty \d/);
    const rollouts = childrenOf(live, view, pairs[0]!);
    assert.equal(rollouts.length, 4);
    assert.deepEqual(rollouts.map((r) => r.label), ['trial 0', 'trial 1', 'trial 2', 'trial 3 (hint)']);
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
