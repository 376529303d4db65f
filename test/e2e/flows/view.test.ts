import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { openRun } from '../../../src/store/runReader.js';
import { freeLoopbackPort, launchBrowser, type BrowserSession } from '../../support/codeServer.js';
import { makeRun } from '../../fixtures/makeRun.js';
import { cspViolations, startRun, startView, watchCsp, writeBundle, type ViewProcess } from '../support/viewProcess.js';

const shots = process.env.COEVOLVE_E2E_SCREENSHOTS ?? join(__dirname, '../../../artifacts/screenshots');

/** `coevolve view` and a `--bundle` site in headless Chromium, against a real demo run while it runs and after. */
describe('e2e: coevolve view in a browser, live, and as a static bundle', function () {
  this.timeout(240_000);
  let work: string;
  let runs: string;
  let run: ChildProcess;
  let runExit: Promise<number | null>;
  let view: ViewProcess;
  let browser: BrowserSession;
  let page: Page;

  const shot = async (name: string): Promise<void> => {
    mkdirSync(shots, { recursive: true });
    await page.screenshot({ path: join(shots, `${name}.png`) });
  };
  const noViolations = async (where: string): Promise<void> => assert.deepEqual(await cspViolations(page), [], `no securitypolicyviolation on ${where}`);
  const demoKey = (): string => {
    const name = readdirSync(runs).find((n) => n.startsWith('demo-'));
    if (!name) throw new Error('the demo run has not written its directory yet');
    return name;
  };

  before(async function () {
    work = mkdtempSync(join(tmpdir(), 'coevolve-e2e-view-'));
    runs = join(work, 'runs');
    // A fixture run with hostile transcript text, beside the real demo run.
    await makeRun(runs, { name: 'hostile', generations: 2, startedAt: '2025-11-01T09:00:00.000Z' });
    view = await startView([runs]);
    browser = await launchBrowser(process.env.COEVOLVE_CHROMIUM ?? '/usr/bin/chromium');
    page = browser.page;
    await watchCsp(page);
    run = startRun(runs, 3);
    runExit = new Promise((r) => run.once('exit', (code) => r(code)));
  });

  after(async function () {
    run?.kill('SIGTERM');
    await browser?.close();
    await view?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('shows a run in progress in the runs list and its new rollouts without a reload', async function () {
    await page.goto(`${view.url}index.html`);
    // The demo run appears in the list while it runs (the live stream announces new run directories).
    const demoRow = page.locator('.run-row', { hasText: 'demo' });
    await demoRow.waitFor({ timeout: 60_000 });
    await noViolations('the runs list');
    await demoRow.locator('.run-link').click();
    await page.locator('#rollout-table').waitFor();
    await page.evaluate(() => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true));
    const count = async (): Promise<number> => Number(await page.locator('#row-count').textContent());
    const first = await count();
    await page.waitForFunction((n) => Number(document.querySelector('#row-count')?.textContent) > n, first, { timeout: 120_000 });
    assert.equal(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument), true, 'the page was not reloaded');
    assert.ok((await page.locator('.rollout-row').count()) > first, 'new rows are drawn');
    await shot('view-run-live');
    await noViolations('the run table');
  });

  it('after the run: runs list, a rollout, the dashboard and deep links render from the real run', async function () {
    assert.equal(await runExit, 0, 'the demo run finished');
    const key = demoKey();
    const index = openRun(join(runs, key));
    await page.goto(`${view.url}index.html`);
    const row = page.locator(`.run-row[data-run="${key}"]`);
    await row.locator('td', { hasText: 'completed' }).waitFor({ timeout: 30_000 });
    assert.match((await row.textContent()) ?? '', new RegExp(`\\b${index.rollouts.size}\\b`), 'the row counts the run’s rollouts');
    await shot('view-runs');
    // The dashboard: its charts from the stored metrics (one per question; more when the run has version-2 metrics).
    await page.goto(`${view.url}dashboard.html?run=${key}`);
    await page.locator('#charts canvas').nth(5).waitFor({ timeout: 30_000 });
    assert.ok((await page.locator('#charts .chart').count()) >= 8);
    assert.match((await page.locator('.dash-head h1').textContent()) ?? '', /demo/);
    await shot('view-dashboard');
    await noViolations('the dashboard');
    // A rollout, by deep link to a step.
    const pick = [...index.rollouts.values()].find((r) => r.steps >= 4 && !r.hint);
    assert.ok(pick, 'the demo run has a rollout with four steps');
    await page.goto(`${view.url}rollout.html?run=${key}&g=${pick.generation}&r=${pick.id}&step=3`);
    await page.locator('.step').first().waitFor();
    await page.locator('#position', { hasText: /^step 3 \// }).waitFor();
    assert.ok((await page.locator('.terminal .term-cmd').count()) > 0, 'commands render as terminal blocks');
    assert.equal(await page.locator('#rerun').count(), 0, 'a read-only host offers no re-run');
    await shot('view-rollout');
    await noViolations('the rollout viewer');
    // The table: a generation deep link, a filter and a search.
    await page.goto(`${view.url}run.html?run=${key}&g=1`);
    await page.locator('.rollout-row').first().waitFor();
    const gens = await page.locator('.rollout-row td:first-child').allTextContents();
    assert.ok(gens.length > 0 && gens.every((g) => g.trim() === '1'), 'the generation link shows generation 1 only');
    await page.locator('#filter-outcome').selectOption('passed');
    await page.waitForFunction(() => [...document.querySelectorAll('.rollout-row td:nth-child(6)')].every((td) => td.textContent?.startsWith('passed')));
    await page.locator('#search').fill('check.sh');
    await page.locator('#search').press('Enter');
    await page.locator('#search-hits').waitFor();
    await shot('view-run-table');
    await noViolations('the run table with a search');
  });

  it('keeps hostile transcript content inert', async function () {
    const key = readdirSync(runs).find((n) => n.startsWith('hostile-')) as string;
    const r = [...openRun(join(runs, key)).rollouts.values()][0]!;
    await page.goto(`${view.url}rollout.html?run=${key}&g=${r.generation}&r=${r.id}`);
    const message = page.locator('.step.user .message').first();
    await message.waitFor();
    assert.match((await message.textContent()) ?? '', /<script>window\.__coevolvePwned = 1<\/script>/);
    assert.equal(await page.locator('#steps script, #steps img').count(), 0, 'no element made from model text');
    assert.equal(await page.evaluate(() => (window as unknown as { __coevolvePwned?: number }).__coevolvePwned), undefined, 'nothing ran');
    await noViolations('a hostile transcript');
  });

  it('refuses crafted run keys, rollout ids, traversal URLs and a run directory with a planted link', async function () {
    for (const q of ['run=..&g=0&r=x', 'run=..%2F..%2Fetc&g=0&r=passwd', `run=${demoKey()}&g=0&r=..%2F..%2Fmanifest`, 'run=%2Fetc&g=0&r=passwd']) {
      await page.goto(`${view.url}rollout.html?${q}`);
      await page.locator('#problem').waitFor();
    }
    // (No named functions inside evaluate: the test's transpiler would wrap them in a helper the page lacks.)
    const answers = await page.evaluate((list) => Promise.all(list.map((params) =>
      fetch('api/rpc', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ kind: 'request', id: 1, method: 'rollout/get', params }) }).then((r) => r.json()))),
    [{ runDir: '../runs', generation: 0, rolloutId: 'x' }, { runDir: '/etc', generation: 0, rolloutId: 'passwd' }, { runDir: '', generation: 0, rolloutId: '' }]);
    assert.ok(answers.every((a) => (a as { ok: boolean }).ok === false));
    for (const path of ['assets/..%2f..%2fpackage.json', 'assets/%2e%2e/%2e%2e/package.json', '..%2f..%2fetc/passwd']) {
      const status = await page.evaluate(async (p) => (await fetch(p)).status, path);
      assert.equal(status, 404, path);
    }
    // A run directory with a link planted in it is listed but never served.
    const planted = await makeRun(runs, { name: 'planted', seed: 5, generations: 1, startedAt: '2025-10-01T09:00:00.000Z' });
    writeFileSync(join(work, 'secret.txt'), 'host secret');
    symlinkSync(join(work, 'secret.txt'), join(planted, 'generations', 'g0009.json'));
    await page.goto(`${view.url}run.html?run=${planted.split('/').pop()}`);
    await page.locator('#problem', { hasText: 'symbolic link' }).waitFor();
    rmSync(planted, { recursive: true, force: true });
  });

  it('off loopback refuses every request without the token, and logs in with it', async function () {
    const open = await startView([runs, '--host', '0.0.0.0']);
    try {
      assert.ok(open.token);
      await page.goto(`${open.url}index.html`);
      await page.locator('#login').waitFor();
      const status = await page.evaluate(async () => [(await fetch('/api/rpc', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"kind":"request","id":1,"method":"runs/list","params":{}}' })).status, (await fetch('/assets/runsPage.js')).status, (await fetch('/api/events')).status]);
      assert.deepEqual(status, [401, 401, 401]);
      await shot('view-login');
      await page.locator('input[name="token"]').fill(open.token as string);
      await page.locator('#login button').click();
      await page.locator('.run-row').first().waitFor();
      assert.doesNotMatch(page.url(), new RegExp(open.token as string), 'the token is not in the URL');
      await noViolations('the runs list after login');
    } finally {
      await open.stop();
    }
  });

  it('serves a --bundle from a plain static file server: runs, run, rollout, dashboard, deep links; no hint plays', async function () {
    const out = join(work, 'bundle');
    const printed = writeBundle(runs, out);
    assert.match(printed, /hint play/, 'the bundle says what it left out');
    const key = demoKey();
    const index = openRun(join(runs, key));
    const hint = [...index.rollouts.values()].find((r) => r.hint);
    assert.ok(hint, 'the demo run has hint plays');
    assert.equal(existsSync(join(out, 'data', key, 'rollouts', `g${hint.generation}`, `${hint.id}.json`)), false, 'no hint play in the bundle');
    const port = await freeLoopbackPort();
    const server = spawn('python3', ['-m', 'http.server', String(port), '--bind', '127.0.0.1', '--directory', out], { stdio: 'ignore' });
    try {
      const base = `http://127.0.0.1:${port}/`;
      await waitForHttp(page, `${base}index.html`);
      await page.locator(`.run-row[data-run="${key}"]`).waitFor();
      await page.locator(`.run-row[data-run="${key}"] .run-link`).click();
      await page.locator('.rollout-row').first().waitFor();
      assert.equal(await page.locator('.rollout-row', { hasText: '(hint)' }).count(), 0, 'no hint rows');
      await shot('view-bundle-run');
      const pick = [...index.rollouts.values()].find((r) => !r.hint && r.status !== 'error' && r.steps >= 3)!;
      await page.goto(`${base}rollout.html?run=${key}&g=${pick.generation}&r=${pick.id}&step=2`);
      await page.locator('#position', { hasText: /^step 2 \// }).waitFor();
      await shot('view-bundle-rollout');
      await page.goto(`${base}dashboard.html?run=${key}`);
      await page.locator('#charts canvas').nth(5).waitFor();
      await noViolations('the bundle');
      await page.goto(`${base}rollout.html?run=${key}&g=${hint.generation}&r=${hint.id}`);
      await page.locator('#problem', { hasText: 'not in this bundle' }).waitFor();
    } finally {
      server.kill('SIGTERM');
    }
  });
});

async function waitForHttp(page: Page, url: string): Promise<void> {
  for (let i = 0; i < 50; i++) {
    try {
      await page.goto(url);
      return;
    } catch {
      await page.waitForTimeout(200);
    }
  }
  throw new Error(`${url} did not answer`);
}
