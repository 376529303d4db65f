// coevolve view benchmark; prints figures, asserts nothing.
//   npm run bench:view
// On runs scaled up from a real demo run (bench/view/scaleRun.ts): the time until the runs list with 1,000 runs and the
// dashboard of a 10,000-rollout run show their data in Chromium (the count and the first screen of rows of the
// virtualized list, six charts), against a baseline in the same run (the same pages over the one demo run), in the browser host
// (`coevolve view`, the built CLI in its own process, HTTP + the same webview bundles) against the editor host in the
// same run (the editor's RunRegistry answering the same bundle through a stand-in VS Code API, and the Runs tree's root
// nodes built in process). Cold = the first load after the server started; warm = median of the next three. Times are the
// browser's own clock (navigation start → the first frame that draws the data); the bench's wall clock is printed beside.
// Targets: ≤ 1 s each in the browser host. Server RSS and the load average are printed beside.
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { runNode, runNodeOfFacts } from '../../src/extension/runs/runTreeModel.js';
import { RunRegistry } from '../../src/viewdata/runRegistry.js';
import { ViewData } from '../../src/viewdata/viewRequests.js';
import { startHarness } from '../../test/support/webviewHarness.js';
import { cloneRuns, realDemoRun, scaleRollouts } from './scaleRun.js';

const root = join(__dirname, '../..');
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const load = (): string => loadavg().map((x) => x.toFixed(2)).join(' ');

function startView(sources: string[]): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [join(root, 'dist/cli.js'), 'view', ...sources, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      const url = /coevolve view: (http:\/\/\S+)/.exec(out)?.[1];
      if (url) resolve({ url, child });
    });
    child.once('exit', (code) => reject(new Error(`coevolve view exited ${code}`)));
  });
}

const rssMb = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;

interface Loads {
  cold: number;
  warm: number;
  /**
   * Every load in order by the browser's own clock (navigation start → the first animation frame in which the data
   * is drawn: that frame paints it), by the bench's wall clock (goto → the bench saw it drawn: adds the bench's own
   * round trips to the page and goto's wait for the load event, which waits for the icon font), and the round trip
   * of each load's first data request (Resource Timing, what the page waited on the host).
   */
  all: number[];
  wall: number[];
  firstRequest: number[];
}

/** Installed in every page before its scripts run: records when `drawn(arg)` first holds, checked every frame. */
const drawnProbe = (drawn: string, arg: unknown): string => `(() => {
  const drawn = ${drawn};
  const arg = ${JSON.stringify(arg)};
  const tick = () => {
    let ok = false;
    try { ok = document.readyState !== 'loading' && drawn(arg); } catch {}
    if (ok) window.__coevolveDrawnAt = performance.now();
    else requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})();`;

// The page's first data request: a POST to /api/rpc (or /rpc in the editor harness), or the preloaded GET of it.
const rpcEntry = /\/(api\/)?rpc(\?|$)/;

/** Navigation to "the data is drawn", in ms, for a cold load and three warm ones. */
async function timeLoads<A>(browser: Browser, url: string, drawn: string, arg: A): Promise<Loads> {
  const times: number[] = [];
  const wall: number[] = [];
  const firstRequest: number[] = [];
  for (let i = 0; i < 4; i++) {
    const page = await browser.newPage({ viewport: { width: 1400, height: 850 } });
    await page.addInitScript(drawnProbe(drawn, arg));
    const t0 = Date.now();
    await page.goto(url, { waitUntil: 'commit' });
    await page.waitForFunction(() => (window as { __coevolveDrawnAt?: number }).__coevolveDrawnAt !== undefined, undefined, { timeout: 120_000, polling: 'raf' });
    wall.push(Date.now() - t0);
    times.push(Math.round(await page.evaluate(() => (window as { __coevolveDrawnAt?: number }).__coevolveDrawnAt as number)));
    // A fetch's Resource Timing entry is added when the loader reports the response complete, which can come after
    // the page used the body (the cold load printed NaN): wait for it.
    await page.waitForFunction((re) => performance.getEntriesByType('resource').some((e) => new RegExp(re).test(e.name)), rpcEntry.source, { timeout: 30_000 });
    firstRequest.push(await page.evaluate((re) => Math.round(performance.getEntriesByType('resource').find((e) => new RegExp(re).test(e.name))?.duration ?? NaN), rpcEntry.source));
    await page.close();
  }
  return { cold: times[0] as number, warm: median(times.slice(1)), all: times, wall, firstRequest };
}

// "Shows its data": the list's count is the number of runs and its first screen of rows has their links (the list is
// virtualized: only rows on screen exist); the dashboard has its charts drawn under the run's own name.
const runsDrawn = '(n) => document.querySelector("#run-count")?.textContent === String(n) && document.querySelectorAll(".run-row .run-link").length >= Math.min(n, 25)';
const chartsDrawn = '(a) => document.querySelectorAll("#charts canvas").length >= a.charts && new RegExp(a.name).test(document.querySelector(".dash-head h1")?.textContent ?? "")';
const ms = (t: { cold: number; warm: number; all?: number[]; wall?: number[]; firstRequest?: number[] }): string =>
  `cold ${t.cold} ms · warm ${t.warm} ms${t.all ? ` (loads ${t.all.join('/')} ms; by the bench's clock ${t.wall?.join('/')} ms; first request's round trip ${t.firstRequest?.join('/')} ms)` : ''}`;
const ratio = (a: { cold: number; warm: number }, b: { cold: number; warm: number }): string => `cold ${(a.cold / b.cold).toFixed(2)}× · warm ${(a.warm / b.warm).toFixed(2)}×`;

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'coevolve-bench-view-'));
  const browser = await chromium.launch({ executablePath: process.env.COEVOLVE_CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const t = Date.now();
    // COEVOLVE_BENCH_VIEW_DEMO names a finished real demo run to scale (one takes ~10 min under load 50); else one is made.
    const given = process.env.COEVOLVE_BENCH_VIEW_DEMO;
    const demo = given ? join(work, 'demo', basename(given)) : realDemoRun(join(work, 'demo'));
    if (given) cpSync(given, demo, { recursive: true });
    const demoGenerations = readdirSync(join(demo, 'generations')).length;
    console.log(`real demo run (${demoGenerations} generations, bwrap) ${given ? `copied from ${given}` : `in ${((Date.now() - t) / 1000).toFixed(0)} s`}; load average ${load()}`);
    cloneRuns(demo, join(work, 'many'), 1000);
    const big = scaleRollouts(demo, join(work, 'big'));
    console.log(`scaled: 1,000 copies of the run; one run of ${big.rollouts} rollouts over 20 generations`);

    // Baseline, same run, same pages and bundles: a coevolve view of the one real demo run (1 run, its 2 generations).
    const small = await startView([join(work, 'demo')]);
    const demoKey = demo.split('/').pop() as string;
    const listSmall = await timeLoads(browser, `${small.url}index.html`, runsDrawn, 1);
    const dashSmall = await timeLoads(browser, `${small.url}dashboard.html?run=${demoKey}`, chartsDrawn, { charts: 6, name: 'demo' });
    small.child.kill('SIGTERM');

    const view = await startView([join(work, 'many'), big.dir]);
    const pid = view.child.pid as number;
    const rssIdle = rssMb(pid);
    const listBrowser = await timeLoads(browser, `${view.url}index.html`, runsDrawn, 1001);
    const rssList = rssMb(pid);
    const dashBrowser = await timeLoads(browser, `${view.url}dashboard.html?run=demo-10k`, chartsDrawn, { charts: 6, name: 'demo-10k' });
    const rssDash = rssMb(pid);
    view.child.kill('SIGTERM');

    // The editor host, same runs, same process conditions: the Runs tree's root (registry + one node per run) ...
    const registryTimes: number[] = [];
    for (let i = 0; i < 4; i++) {
      const t0 = performance.now();
      const registry = new RunRegistry(() => [join(work, 'many'), join(work, 'big')]);
      // As the Runs tree's root draws them (runsTreeProvider.getChildren): opened runs from their index, others from their facts.
      const nodes = registry.rows().flatMap((e) => (e.live ? [runNode(e.live)] : e.manifest && e.facts ? [runNodeOfFacts(e.dir, e.manifest, e.facts)] : []));
      if (nodes.length < 1001) throw new Error(`editor registry listed ${nodes.length} runs`);
      registryTimes.push(performance.now() - t0);
    }
    const registryLoads = { cold: Math.round(registryTimes[0] as number), warm: Math.round(median(registryTimes.slice(1))) };
    // ... and the dashboard bundle answered by the editor's registry through a stand-in VS Code API.
    // The same runs as the server (its compare picker lists all 1,001 runs in both hosts).
    const registry = new RunRegistry(() => [join(work, 'many'), join(work, 'big')]);
    const data = new ViewData(registry);
    // The editor's dashboard panel opens the run (its LiveRun, for the tab's title) before the page asks: so here.
    const harness = await startHarness(root, 'dashboard', 'coevolve-dashboard', { runDir: big.dir }, (method, params) => {
      if (method === 'dashboard/get') registry.get(big.dir);
      return (data.handlers as Record<string, (p: unknown) => unknown>)[method]?.(params);
    });
    const dashEditor = await timeLoads(browser, harness.url, chartsDrawn, { charts: 6, name: 'demo-10k' });
    await harness.close();

    console.log(`\ncoevolve view (production build) vs a baseline in the same run; target ≤ 1000 ms; load average ${load()}`);
    console.log(`  runs list until its count and first screen of rows are drawn:`);
    console.log(`    1,001 runs, browser host           ${ms(listBrowser)}`);
    console.log(`    baseline: 1 run, browser host      ${ms(listSmall)}`);
    console.log(`    ratio 1,001 runs / 1 run           ${ratio(listBrowser, listSmall)}`);
    console.log(`    editor host (Runs tree root)       ${ms(registryLoads)} (in process: RunRegistry.rows + the root's nodes, no drawing)`);
    console.log(`  dashboard until six charts are drawn:`);
    console.log(`    ${big.rollouts}-rollout run, browser host ${ms(dashBrowser)}`);
    console.log(`    baseline: the ${demoGenerations}-generation demo run ${ms(dashSmall)}`);
    console.log(`    ratio 10k run / demo run           ${ratio(dashBrowser, dashSmall)}`);
    console.log(`    editor host (same bundle, 10k run) ${ms(dashEditor)} · browser/editor ${ratio(dashBrowser, dashEditor)}`);
    console.log(`  server RSS: idle ${rssIdle.toFixed(0)} MB · after the runs list ${rssList.toFixed(0)} MB · after the dashboard ${rssDash.toFixed(0)} MB`);
  } finally {
    await browser.close();
    rmSync(work, { recursive: true, force: true });
  }
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
