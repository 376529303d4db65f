// Editor benchmarks; prints figures, asserts nothing (see test/ for correctness).
//   node --import=tsx bench/editor/run.ts
// 1. Runs tree with 10,000 rollouts: every node built (all generations, pairs and rollouts expanded), plain and
//    with a filter and a sort; against the baseline of parsing the same events.jsonl text, measured in this run.
// 2. Incremental refresh: reading 50 appended events with EventTail against re-reading the whole log.
// 3. Rollout viewer first paint with 5,000 steps in Chromium (the real bundle, same CSP): from the data arriving
//    in the page to the first screen painted, and from navigation.
// 4. The dashboard's flat rollout table (sort, filter) and transcript search on a real run scaled to 10,000
//    rollouts, in Chromium (bench/editor/table.ts). `-- table` runs only this part.
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { summarizeRollout } from '../../src/core/rollout/trajectory.js';
import { EventTail } from '../../src/viewdata/eventTail.js';
import { childrenOf, runNode, type RunTreeNode, type TreeContext, type TreeView } from '../../src/extension/runs/runTreeModel.js';
import { readEventLog } from '../../src/store/eventLog.js';
import { indexEvents } from '../../src/store/runReader.js';
import { largeRunEvents, longRollout } from '../../test/fixtures/makeRun.js';
import { startHarness } from '../../test/support/webviewHarness.js';
import { tableBench } from './table.js';

const root = join(__dirname, '../..');

function time<T>(fn: () => T, reps = 5): { ms: number; value: T } {
  let best = Infinity;
  let value!: T;
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    value = fn();
    best = Math.min(best, performance.now() - t0);
  }
  return { ms: best, value };
}

function expandAll(ctx: TreeContext, view: TreeView): number {
  let n = 0;
  const walk = (node: RunTreeNode): void => {
    n++;
    for (const c of childrenOf(ctx, view, node)) walk(c);
  };
  walk(runNode(ctx));
  return n;
}

async function treeBench(): Promise<void> {
  const { manifest, events } = largeRunEvents(10_000);
  const text = events.map((e) => JSON.stringify(e)).join('\n') + '\n';
  const baseline = time(() => text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as unknown).length);
  const index = time(() => indexEvents('/bench', manifest, events));
  const ctx: TreeContext = { run: index.value, metrics: () => undefined, env: (id) => ({ family: id.split('-g')[0] ?? 'x', difficulty: 1, title: id }) };
  const plain = time(() => expandAll(ctx, { filter: {}, sort: 'default' }));
  const sorted = time(() => expandAll(ctx, { filter: {}, sort: 'reward' }));
  const filtered = time(() => expandAll(ctx, { filter: { failedEveryTrial: true }, sort: 'cost' }));
  const lastGen = index.value.generations.at(-1)?.index ?? 0;
  const oneLevel = time(() => childrenOf(ctx, { filter: {}, sort: 'reward' }, { kind: 'generation', generation: lastGen } as RunTreeNode).length, 20);
  console.log(`tree, ${index.value.rollouts.size} rollouts, ${events.length} events (target: expansion ≤ 100 ms)`);
  console.log(`  baseline: parse events.jsonl text       ${baseline.ms.toFixed(1)} ms`);
  console.log(`  index events (once per refresh)         ${index.ms.toFixed(1)} ms  (${(index.ms / baseline.ms).toFixed(2)}× baseline)`);
  console.log(`  expand one generation (sorted)          ${oneLevel.ms.toFixed(2)} ms`);
  console.log(`  expand everything, ${plain.value} nodes       ${plain.ms.toFixed(1)} ms  (${(plain.ms / baseline.ms).toFixed(2)}× baseline)`);
  console.log(`  expand everything, sorted by reward     ${sorted.ms.toFixed(1)} ms`);
  console.log(`  expand, failed-in-every-trial + cost    ${filtered.ms.toFixed(1)} ms (${filtered.value} nodes)`);

  const dir = mkdtempSync(join(tmpdir(), 'coevolve-bench-tail-'));
  try {
    const path = join(dir, 'events.jsonl');
    writeFileSync(path, text);
    const tail = new EventTail(path);
    tail.read();
    const extra = events.slice(-50).map((e) => JSON.stringify(e)).join('\n') + '\n';
    let incMs = Infinity;
    let fullMs = Infinity;
    for (let i = 0; i < 5; i++) {
      appendFileSync(path, extra);
      const t0 = performance.now();
      tail.read();
      incMs = Math.min(incMs, performance.now() - t0);
      const t1 = performance.now();
      readEventLog(path);
      fullMs = Math.min(fullMs, performance.now() - t1);
    }
    console.log(`  refresh after 50 appended events: tail ${incMs.toFixed(2)} ms vs whole log ${fullMs.toFixed(1)} ms (${(fullMs / incMs).toFixed(0)}× less work)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function firstPaint(steps: number, loads: number): Promise<{ paint: number[]; total: number[]; rendered: number }> {
  const record = longRollout(steps);
  const view = { ref: { runDir: '/bench', generation: 0, rolloutId: record.id }, record, summary: summarizeRollout(record), running: false, filePath: '/bench.json', env: null, user: null, runName: 'bench' };
  const harness = await startHarness(root, 'rolloutViewer', 'coevolve-rollout-viewer', view.ref, () => view);
  const browser = await chromium.launch({ executablePath: process.env.COEVOLVE_CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
  const out = { paint: [] as number[], total: [] as number[], rendered: 0 };
  try {
    for (let i = 0; i < loads; i++) {
      const page = await browser.newPage({ viewport: { width: 1400, height: 850 } });
      await page.goto(harness.url);
      await page.waitForFunction(() => window.__coevolvePaint !== undefined, undefined, { timeout: 60_000 });
      const p = await page.evaluate(() => window.__coevolvePaint as { dataMs: number; paintedMs: number; steps: number });
      if (i > 0) {
        out.paint.push(p.paintedMs - p.dataMs);
        out.total.push(p.paintedMs);
      }
      out.rendered = await page.locator('.step').count();
      await page.close();
    }
  } finally {
    await browser.close();
    await harness.close();
  }
  return out;
}

async function viewerBench(): Promise<void> {
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
  // Baseline: the same viewer on a 20-step rollout, in the same browser and load conditions.
  const small = await firstPaint(20, 4);
  const large = await firstPaint(5000, 4);
  const s = median(small.paint);
  const l = median(large.paint);
  console.log(`viewer first paint (target ≤ 200 ms for 5,000 steps); medians of 3 warm loads`);
  console.log(`  baseline 20 steps: data in page → painted  ${s.toFixed(0)} ms (navigation → painted ${median(small.total).toFixed(0)} ms)`);
  console.log(`  5,000 steps:       data in page → painted  ${l.toFixed(0)} ms (navigation → painted ${median(large.total).toFixed(0)} ms)  ${(l / s).toFixed(2)}× baseline`);
  console.log(`  step elements in the DOM with 5,000 steps: ${large.rendered} (virtualised)`);
}

async function main(): Promise<void> {
  // `-- table` runs only part 4 (it makes a real demo run first, so it is the slow part).
  const only = process.argv[2];
  if (!only || only === 'tree') await treeBench();
  if (!only || only === 'viewer') await viewerBench();
  if (!only || only === 'table') await tableBench();
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
