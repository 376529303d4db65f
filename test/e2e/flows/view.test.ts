import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page, Request } from 'playwright-core';
import { openRun } from '../../../src/store/runReader.js';
import { runCliAsync } from '../../support/cli.js';
import { freeLoopbackPort, launchBrowser, type BrowserSession } from '../../support/codeServer.js';
import { makeRun } from '../../fixtures/makeRun.js';
import { contrastRatio, drawnBars } from '../../support/rendered.js';
import { cspViolations, startRun, startView, watchCsp, writeBundle, type BackgroundRun, type ViewProcess } from '../support/viewProcess.js';

const shots = process.env.COEVOLVE_E2E_SCREENSHOTS ?? join(__dirname, '../../../artifacts/screenshots');

/** `coevolve view` and a `--bundle` site in headless Chromium, against a real demo run while it runs and after. */
describe('e2e: coevolve view in a browser, live, and as a static bundle', function () {
  this.timeout(240_000);
  let work: string;
  let runs: string;
  let run: BackgroundRun;
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
  });

  after(async function () {
    run?.child.kill('SIGTERM');
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
    // The demo takes ~1 min on a quiet machine and many under load: wait while it makes progress, then 240 s for the
    // checks (mocha holds a test's whole duration to its timeout, so the wait is added to it).
    const started = Date.now();
    this.timeout(0);
    assert.equal(await run.exit(), 0, `the demo run finished:\n${run.output().slice(-2000)}`);
    this.timeout(Date.now() - started + 240_000);
    const key = demoKey();
    const index = openRun(join(runs, key));
    // Every window of the runs list the page asks for (a window before the first row was asked for and refused once).
    const offsets: number[] = [];
    const onRequest = (r: Request): void => {
      const body = r.method() === 'POST' && r.url().endsWith('/api/rpc') ? (JSON.parse(r.postData() ?? '{}') as { method?: string; params?: { offset?: number } }) : undefined;
      if (body?.method === 'runs/page') offsets.push(body.params?.offset ?? 0);
    };
    page.on('request', onRequest);
    await page.goto(`${view.url}index.html`);
    const row = page.locator(`.run-row[data-run="${key}"]`);
    await row.locator('.cell', { hasText: 'completed' }).waitFor({ timeout: 30_000 });
    assert.match((await row.textContent()) ?? '', new RegExp(`\\b${index.rollouts.size}\\b`), 'the row counts the run’s rollouts');
    // The first screen's requests were sent when it was laid out, before its rows showed; a refusal is drawn on its answer.
    await page.waitForTimeout(1000);
    page.off('request', onRequest);
    assert.deepEqual(offsets.filter((o) => o < 0), [], `runs/page asked at offsets ${offsets.join(', ')}`);
    assert.equal(await page.locator('#problem').count(), 0, `the runs list shows no problem: ${(await page.locator('#problem').allTextContents()).join(' ')}`);
    // Every header and cell but a run's name (which may be long, and is cut on purpose) reads whole: an ellipsis cut
    // "generations", "last success", the start time and "dashboard".
    const cut = await page.evaluate(() => [...document.querySelectorAll('.run-head > span:not(:first-child), .run-row > .cell:not(:first-child)')].filter((e) => e.scrollWidth > e.clientWidth).map((e) => e.textContent));
    assert.deepEqual(cut, [], 'no header or cell of the runs list is cut');
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
    // Its reward tab: every bar drawn to its value (issue 17: a bar's drawn size matches its value in every panel).
    await page.locator('vscode-tab-header[data-tab="reward"]').click();
    await page.locator('#reward-components').waitFor();
    const bars = await drawnBars(page);
    assert.ok(bars.checked >= 4 && bars.values.some((v) => v > 0), `reward bars checked: ${bars.values.join(', ')}`);
    assert.deepEqual(bars.mismatches, [], 'every reward bar of the browser rollout page is drawn to its value');
    await shot('view-rollout-reward');
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
    // The search's index went to the server's own cache folder, not the user's.
    await waitFor(() => existsSync(view.transcriptCache) && readdirSync(view.transcriptCache).some((n) => n.endsWith('.jsonl')), 'the transcript index in the server\'s own cache folder');
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

  it('follows the browser\'s colour scheme and contrast: dark, light and both high-contrast themes, bars still to scale', async function () {
    const key = readdirSync(runs).find((n) => n.startsWith('hostile-')) as string;
    const r = [...openRun(join(runs, key)).rollouts.values()][0]!;
    const seen: Record<string, unknown> = {};
    try {
      for (const [scheme, contrast, kind] of [['dark', 'no-preference', 'vscode-dark'], ['light', 'no-preference', 'vscode-light'], ['dark', 'more', 'vscode-high-contrast'], ['light', 'more', 'vscode-high-contrast-light']] as const) {
        await page.emulateMedia({ colorScheme: scheme, contrast });
        await page.goto(`${view.url}rollout.html?run=${key}&g=${r.generation}&r=${r.id}`);
        await page.locator('.step').first().waitFor();
        await page.locator('vscode-tab-header[data-tab="reward"]').click();
        await page.locator('#reward-components').waitFor();
        // What Chromium drew: the body's theme class, its colours, the chart palette and the bars' outline.
        const drawn = await page.evaluate(() => {
          const body = getComputedStyle(document.body);
          const bar = document.querySelector('.vbar') as HTMLElement;
          const text = ['--vscode-foreground', '--vscode-descriptionForeground', '--vscode-panelTitle-activeForeground', '--vscode-textLink-foreground', '--vscode-input-foreground'].map((v) => [v, body.getPropertyValue(v).trim()]);
          return { kind: document.body.dataset['vscodeThemeKind'], classes: document.body.className, background: body.backgroundColor, color: body.color, blue: body.getPropertyValue('--coevolve-blue').trim(), outline: `${getComputedStyle(bar).outlineStyle} ${getComputedStyle(bar).outlineColor}`, text, editorBackground: body.getPropertyValue('--vscode-editor-background').trim() };
        });
        seen[kind] = drawn;
        assert.equal(drawn.kind, kind, `${scheme}/${contrast}: ${JSON.stringify(drawn)}`);
        // Every text colour the panels draw on the page's background is readable (WCAG AA, 4.5:1).
        for (const [name, value] of drawn.text as [string, string][]) assert.ok(contrastRatio(value, drawn.editorBackground) >= 4.5, `${kind}: ${name} ${value} on ${drawn.editorBackground} has contrast ${contrastRatio(value, drawn.editorBackground).toFixed(2)}`);
        const bars = await drawnBars(page);
        assert.ok(bars.checked >= 4, `${kind}: reward bars checked`);
        assert.deepEqual(bars.mismatches, [], `${kind}: every bar drawn to its value`);
        await noViolations(`the rollout viewer in ${kind}`);
        if (kind === 'vscode-high-contrast') await shot('view-rollout-high-contrast');
      }
    } finally {
      await page.emulateMedia({ colorScheme: null, contrast: null });
    }
    const d = seen as Record<string, { background: string; color: string; blue: string; outline: string; classes: string }>;
    assert.equal(d['vscode-dark']!.blue, '#3d9bd9', 'dark pages use the palette for dark backgrounds');
    assert.equal(d['vscode-light']!.blue, '#0072b2');
    assert.equal(d['vscode-high-contrast']!.background, 'rgb(0, 0, 0)');
    assert.equal(d['vscode-high-contrast']!.color, 'rgb(255, 255, 255)');
    assert.equal(d['vscode-high-contrast']!.outline, 'solid rgb(111, 195, 223)', 'high contrast outlines every bar');
    assert.equal(d['vscode-high-contrast-light']!.background, 'rgb(255, 255, 255)');
    assert.equal(d['vscode-high-contrast-light']!.outline, 'solid rgb(15, 74, 133)');
    assert.match(d['vscode-high-contrast-light']!.classes, /\bvscode-high-contrast\b/);
    assert.notEqual(d['vscode-dark']!.outline.split(' ')[0], 'solid', 'no outline outside high contrast');
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

  it('shows the dataset: curated items with why an export leaves them out, filters in the URL, live, and curation with --allow-curation', async function () {
    const key = demoKey();
    const dir = join(runs, key);
    const rollouts = [...openRun(dir).rollouts.values()].filter((r) => r.status !== 'error');
    const plain = rollouts.find((r) => !r.hint)!;
    const hint = rollouts.find((r) => r.hint)!;
    const other = rollouts.find((r) => !r.hint && r.id !== plain.id)!;
    const line = (target: string, action: string, at: number): string => `${JSON.stringify({ at: new Date(Date.UTC(2026, 0, 1, 0, 0, at)).toISOString(), target: { kind: 'rollout', id: target }, action })}\n`;
    appendFileSync(join(dir, 'curation.jsonl'), line(plain.id, 'accept', 1) + line(hint.id, 'accept', 2));
    await page.goto(`${view.url}dataset.html`);
    await page.locator('.dataset-row').nth(1).waitFor();
    await page.evaluate(() => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true));
    const cell = (id: string, col: string) => page.locator(`.dataset-row[data-id="${id}"] td.${col}`);
    assert.equal((await cell(plain.id, 'export').textContent())?.trim(), 'exported');
    assert.match((await cell(hint.id, 'export').textContent()) ?? '', /left out: hint play/, 'an accepted hint play stays out of exports');
    assert.equal(await page.locator('#dataset-table td.actions').count(), 0, 'a read-only server offers no curation buttons');
    // What Chromium drew: the verdict colour comes from the stylesheet (no style attribute), the header is sticky.
    const drawn = await page.evaluate((id) => {
      const td = document.querySelector(`.dataset-row[data-id="${id}"] td.verdict`) as HTMLElement;
      const th = document.querySelector('#dataset-table th') as HTMLElement;
      return { verdict: getComputedStyle(td).color, body: getComputedStyle(document.body).color, header: getComputedStyle(th).position, styled: document.querySelectorAll('#app [style]').length };
    }, plain.id);
    assert.notEqual(drawn.verdict, drawn.body, 'an accepted verdict is drawn in the passed colour, not the text colour');
    assert.equal(drawn.header, 'sticky');
    assert.equal(drawn.styled, 0, 'no inline style attribute (the CSP would drop it)');
    // A decision made elsewhere appears without a reload (dataset/changed on the live stream).
    appendFileSync(join(dir, 'curation.jsonl'), line(other.id, 'reject', 3));
    await page.locator(`.dataset-row[data-id="${other.id}"] td.verdict`, { hasText: 'rejected' }).waitFor({ timeout: 20_000 });
    assert.equal(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument), true, 'the page was not reloaded');
    // Filters go into the URL, so the link shows the same items.
    await page.locator('#filter-verdict').selectOption('accepted');
    await page.waitForFunction(() => document.querySelectorAll('.dataset-row').length === 2);
    assert.match(page.url(), /verdict=accepted/);
    assert.match((await page.locator('#export-args').textContent()) ?? '', /--filter accepted/);
    await page.goto(page.url());
    await page.locator('.dataset-row').nth(1).waitFor();
    assert.equal(await page.locator('.dataset-row').count(), 2);
    await shot('view-dataset');
    await noViolations('the dataset page');
    // With --allow-curation the page curates: Reject writes a decision to the run's curation.jsonl.
    const curating = await startView([runs, '--allow-curation']);
    try {
      await page.goto(`${curating.url}dataset.html?run=${key}`);
      await page.locator(`.dataset-row[data-id="${plain.id}"] button.reject`).click();
      await page.locator(`.dataset-row[data-id="${plain.id}"] td.verdict`, { hasText: 'rejected' }).waitFor();
      const written = readFileSync(join(dir, 'curation.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { target: { id: string }; action: string; author?: string }).at(-1);
      assert.deepEqual([written?.target.id, written?.action, written?.author], [plain.id, 'reject', 'coevolve view'], 'the decision is in the run\'s curation.jsonl');
      await page.locator(`.dataset-row[data-id="${plain.id}"] button.accept`).click();
      await page.locator(`.dataset-row[data-id="${plain.id}"] td.verdict`, { hasText: 'accepted' }).waitFor();
      await noViolations('the dataset page with curation');
    } finally {
      await curating.stop();
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
      // The bundle's dataset: the curated items it holds, never the rejected one or the hint play.
      await page.goto(`${base}dataset.html`);
      await page.locator('#bundle-note').waitFor();
      const ids = await page.locator('.dataset-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id')));
      const curated = readFileSync(join(runs, key, 'curation.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { target: { id: string }; action: string });
      const rejected = curated.filter((c) => c.action === 'reject').map((c) => c.target.id).filter((id) => curated.filter((c) => c.target.id === id).at(-1)?.action === 'reject');
      assert.ok(ids.length > 0, 'the accepted rollout is in the bundle\'s dataset');
      assert.ok(!ids.includes(hint.id), 'no hint play in the bundle\'s dataset');
      assert.ok(rejected.length > 0 && rejected.every((id) => !ids.includes(id)), 'no rejected item in the bundle\'s dataset');
      await noViolations('the bundle\'s dataset');
    } finally {
      server.kill('SIGTERM');
    }
  });

  it('shows a stored eval of the real run with the figures coevolve eval printed: the share, its sd over another draw, what another draw would read, the true spread, how far the run\'s model and evidence were off, each pair\'s prediction', async function () {
    // 20 fresh plays of every pair of the demo's archive on bwrap: minutes under load, so the limit is generous.
    this.timeout(900_000);
    const r = await runCliAsync(['eval', join(runs, demoKey()), '--backend', 'bwrap', '--n', '20', '--no-user-effect', '--out', runs]);
    assert.equal(r.code, 0, `coevolve eval failed:\n${r.stderr.slice(-2000)}`);
    const printed = /in band: (\d+)% of (\d+) pairs \(sd (\d+) points over another draw of 20 plays each\) · another draw would read (\d+)% on average \(pairs shrunk to the archive's spread\) · true success spreads (\d\.\d\d) \(sd/.exec(r.stdout);
    assert.ok(printed, `the eval's summary line:\n${r.stdout.slice(-1500)}`);
    const evalKey = readdirSync(runs).find((n) => n.startsWith('eval-'));
    assert.ok(evalKey, 'the eval is stored beside the runs');
    await page.goto(`${view.url}run.html?run=${evalKey}`);
    await page.locator('#eval').waitFor({ timeout: 30_000 });
    assert.match(await page.locator('#eval .summary-line').first().innerText(), new RegExp(`^${printed[2]} pairs · ${printed[1]}% in band`));
    assert.ok(await page.locator('#eval-redraw').isVisible());
    assert.equal(await page.locator('#eval-redraw').innerText(), `(sd ${printed[3]} points over another draw)`);
    assert.equal(await page.locator('#eval-expected').innerText(), `${printed[4]}%`);
    assert.equal(await page.locator('#eval-spread').innerText(), printed[5]);
    // What the run selected on, against these plays: the same figures eval printed, and each pair's prediction.
    const model = /the run's fitted model: off by (\d\.\d\d) rms \(noise removed; knowing only the mean: (\d\.\d\d)\), bias ([+−]\d\.\d\d), slope (\S+) \(1 calibrated, 0 no information\) over (\d+) pairs/.exec(r.stdout);
    assert.ok(model, `the eval's model line:\n${r.stdout.slice(-1500)}`);
    assert.equal(await page.locator('#eval-model').innerText(), `the run's fitted model off by ${model[1]} rms (knowing only the mean: ${model[2]}), bias ${model[3]}, slope ${model[4]} over ${model[5]} pairs`);
    assert.ok(await page.locator('#eval-evidence').isVisible(), "the pooled evidence's line");
    const stored = JSON.parse(readFileSync(join(runs, evalKey, 'artifacts', 'eval.json'), 'utf8')) as { pairs: { predicted: number | null }[] };
    const cells = await page.locator('#eval-pairs .eval-predicted').allInnerTexts();
    assert.deepEqual(cells, stored.pairs.map((p) => (p.predicted === null ? '—' : `${Math.round(p.predicted * 100)}%`)), "each pair's prediction as stored");
    await noViolations('the eval');
    await shot('view-eval');
  });
});

async function waitFor(probe: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

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
