// bench:editor, part 4: the dashboard's flat rollout table and transcript search on a real demo run scaled up to
// about 10,000 rollouts (bench/view/scaleRun.ts: the demo's generations replayed with fresh ids, rollout files
// hard-linked). The real dashboard bundle in Chromium under the webview CSP, answered by the view data layer
// (ViewData over a RunRegistry, as the editor's webview host answers it) through a stand-in VS Code API.
// Each figure is the page's own: from the click (or the query, after the 150 ms typing pause) until the rows or hits
// are painted (window.__coevolveTable). Baseline, same run: the same query answered in process by the data layer.
// Targets (issue 17): sort / filter ≤ 100 ms, search ≤ 300 ms. RSS of the host (this process) and of the webview
// (Chromium's renderer processes) printed beside, with the load average.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { RunRegistry } from '../../src/viewdata/runRegistry.js';
import { ViewData } from '../../src/viewdata/viewRequests.js';
import { startHarness } from '../../test/support/webviewHarness.js';
import { realDemoRun, scaleRollouts } from '../view/scaleRun.js';

const root = join(__dirname, '../..');
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const load = (): string => loadavg().map((x) => x.toFixed(2)).join(' ');

interface Measured {
  action: string;
  renderedMs: number;
  rows: number;
  total: number;
}

function statusOf(pid: number): { ppid: number; rssMb: number } | undefined {
  try {
    const s = readFileSync(`/proc/${pid}/status`, 'utf8');
    return { ppid: Number(/PPid:\s+(\d+)/.exec(s)?.[1]), rssMb: Number(/VmRSS:\s+(\d+)/.exec(s)?.[1] ?? 0) / 1024 };
  } catch {
    return undefined;
  }
}

/** Summed RSS of the Chromium renderer processes under `ancestor` (this process launched the browser). */
function rendererRssMb(ancestor: number): number {
  const all = readdirSync('/proc').filter((n) => /^\d+$/.test(n)).map(Number);
  const parent = new Map(all.map((p) => [p, statusOf(p)?.ppid ?? 0]));
  const under = (p: number): boolean => {
    for (let q = parent.get(p), hops = 0; q && hops < 10; q = parent.get(q), hops++) if (q === ancestor) return true;
    return false;
  };
  let sum = 0;
  for (const p of all) {
    if (!under(p)) continue;
    let cmd = '';
    try {
      cmd = readFileSync(`/proc/${p}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (cmd.includes('--type=renderer')) sum += statusOf(p)?.rssMb ?? 0;
  }
  return sum;
}

/** Does `act` in the page and returns the page's measurement of it (click or query → painted). */
async function measure(page: Page, action: string, act: () => Promise<void>): Promise<Measured> {
  await page.evaluate(() => (window.__coevolveTable = undefined));
  await act();
  await page.waitForFunction((a) => window.__coevolveTable?.action === a, action, { timeout: 120_000, polling: 'raf' });
  const m = await page.evaluate(() => window.__coevolveTable!);
  return { action, renderedMs: m.renderedMs, rows: m.rows, total: m.total };
}

async function search(page: Page, query: string): Promise<Measured> {
  // Clear first (back to the table), then type the query: the search runs after the typing pause.
  await page.fill('#table-search', '');
  await page.locator('#rollouts').waitFor();
  return measure(page, 'search', () => page.fill('#table-search', query));
}

export async function tableBench(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'coevolve-bench-table-'));
  const browser = await chromium.launch({ executablePath: process.env.COEVOLVE_CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const t = Date.now();
    const demo = realDemoRun(join(work, 'demo'));
    const big = scaleRollouts(demo, join(work, 'big'));
    console.log(`\nrollout table and search: real demo run (2 generations, bwrap) in ${((Date.now() - t) / 1000).toFixed(0)} s, scaled to ${big.rollouts} rollouts over 20 generations`);
    const registry = new RunRegistry(() => [dirname(big.dir)]);
    const data = new ViewData(registry);
    const answer = (method: string, params: unknown): unknown => (data.handlers as Record<string, (p: unknown) => unknown>)[method]?.(params);
    const harness = await startHarness(root, 'dashboard', 'coevolve-dashboard', { runDir: big.dir }, answer);
    const rssHostBefore = process.memoryUsage().rss / 2 ** 20;
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 850 } });
      await page.goto(harness.url);
      await page.locator('vscode-tab-header[data-tab="rollouts"]').waitFor({ timeout: 120_000 });
      const open = await measure(page, 'open', () => page.locator('vscode-tab-header[data-tab="rollouts"]').click());
      if (open.total < 9000) throw new Error(`the table lists ${open.total} rollouts, not about 10,000`);
      const sorts: Measured[] = [];
      for (const key of ['reward', 'steps', 'durationMs', 'userId', 'reward']) {
        sorts.push(await measure(page, 'sort', () => page.locator(`button.sort[data-sort="${key}"]`).click()));
      }
      const filters: Measured[] = [];
      filters.push(await measure(page, 'filter', () => page.selectOption('#filter-outcome', 'failed').then(() => undefined)));
      filters.push(await measure(page, 'filter', () => page.selectOption('#filter-generation', '7').then(() => undefined)));
      filters.push(await measure(page, 'filter', () => page.selectOption('#filter-generation', '').then(() => undefined)));
      filters.push(await measure(page, 'filter', () => page.selectOption('#filter-outcome', '').then(() => undefined)));
      filters.push(await measure(page, 'filter', () => page.fill('#filter-min-reward', '0.5').then(() => page.locator('#filter-min-reward').press('Enter'))));
      const painted = await page.locator('#rollouts tbody tr').count();
      await page.fill('#filter-min-reward', '');
      await measure(page, 'filter', () => page.locator('#filter-min-reward').press('Enter'));
      // Search: the first query reads every transcript once (cold); later ones scan the kept step texts (warm).
      const cold = await search(page, 'error');
      const warm = [await search(page, 'exit'), await search(page, 'error'), await search(page, 'no-such-text-zq')];
      const rssWebview = rendererRssMb(process.pid);
      const rssHost = process.memoryUsage().rss / 2 ** 20;

      // Baseline in the same run and process: the data layer answering the same queries with no page in between.
      const inProcess = (fn: () => unknown): number => {
        const t0 = performance.now();
        fn();
        return performance.now() - t0;
      };
      const baseSort = median([0, 1, 2].map(() => inProcess(() => answer('rollouts/table', { runDir: big.dir, sort: { key: 'reward', dir: 'desc' }, limit: 200 }))));
      const baseFilter = median([0, 1, 2].map(() => inProcess(() => answer('rollouts/table', { runDir: big.dir, filter: { outcome: 'failed' }, limit: 200 }))));
      const baseSearch = median([0, 1, 2].map(() => inProcess(() => answer('rollouts/search', { runDir: big.dir, query: 'error', limit: 100 }))));
      const s = median(sorts.map((m) => m.renderedMs));
      const f = median(filters.map((m) => m.renderedMs));
      const w = median(warm.map((m) => m.renderedMs));
      console.log(`  click → rows painted in Chromium (targets: sort/filter ≤ 100 ms, search ≤ 300 ms); load average ${load()}`);
      console.log(`    open the Rollouts tab           ${open.renderedMs.toFixed(0)} ms (${open.rows} rows of ${open.total} painted)`);
      console.log(`    sort, 5 clicks                  median ${s.toFixed(0)} ms, max ${Math.max(...sorts.map((m) => m.renderedMs)).toFixed(0)} ms · in process ${baseSort.toFixed(1)} ms (${(s / baseSort).toFixed(1)}× baseline)`);
      console.log(`    filter, 5 changes               median ${f.toFixed(0)} ms, max ${Math.max(...filters.map((m) => m.renderedMs)).toFixed(0)} ms · in process ${baseFilter.toFixed(1)} ms (${(f / baseFilter).toFixed(1)}× baseline); ${painted} rows painted at reward ≥ 0.5`);
      console.log(`    search, cold (reads every transcript once)  ${cold.renderedMs.toFixed(0)} ms ("error" in ${cold.total} rollouts)`);
      console.log(`    search, warm, 3 queries         median ${w.toFixed(0)} ms, max ${Math.max(...warm.map((m) => m.renderedMs)).toFixed(0)} ms · in process ${baseSearch.toFixed(1)} ms (${(w / baseSearch).toFixed(1)}× baseline)`);
      console.log(`    RSS: host (ViewData + harness, this process) ${rssHostBefore.toFixed(0)} → ${rssHost.toFixed(0)} MB · webview (Chromium renderers) ${rssWebview.toFixed(0)} MB`);
      await page.close();
    } finally {
      await harness.close();
    }
  } finally {
    await browser.close();
    rmSync(work, { recursive: true, force: true });
  }
}
