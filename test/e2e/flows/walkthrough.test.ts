import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Frame, Locator } from 'playwright-core';
import { launchBrowser, type BrowserSession } from '../../support/codeServer.js';
import { cspViolations, drawnBars, drawnLegends } from '../../support/rendered.js';
import { Workbench } from '../support/workbench.js';

/**
 * A new user's path, in the workbench the other flows share: an empty folder, the "Get started" walkthrough, a
 * real demo run started from it (the CLI in a child process, real sandboxes), the Runs tree, the progress toast and
 * the CLI's log naming the same generation while it runs, and the walkthrough's dashboard step on the finished
 * run. Every bar the panels draw is measured against its value, and each panel records no CSP violation.
 */
describe('e2e: the walkthrough, from an empty folder to a real demo run and its dashboard', function () {
  this.timeout(900_000);
  let folder: string;
  let browser: BrowserSession;
  let wb: Workbench;

  before(async function () {
    const url = process.env.COEVOLVE_E2E_URL;
    if (!url) throw new Error('COEVOLVE_E2E_URL is not set: run through test/e2e/run.mjs');
    folder = mkdtempSync(join(tmpdir(), 'coevolve-e2e-empty-'));
    browser = await launchBrowser(process.env.COEVOLVE_CHROMIUM ?? '/usr/bin/chromium', { width: 1400, height: 850 });
    wb = new Workbench(browser.page, process.env.COEVOLVE_E2E_SCREENSHOTS ?? 'artifacts/screenshots');
    await wb.open(`${url}/?${new URLSearchParams({ folder }).toString()}`);
  });

  afterEach(async function () {
    // A failed step leaves a picture of what was on screen, beside the ones the steps take.
    if (this.currentTest?.state === 'failed') await wb?.screenshot(`walkthrough-failed-${this.currentTest.title.slice(0, 24).replace(/\W+/g, '-')}`).catch(() => undefined);
  });

  after(async function () {
    await browser?.close();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  const page = () => wb.page;
  const step = (title: string): Locator => page().locator('.getting-started-step', { hasText: title }).first();
  /** Expands a walkthrough step (a collapsed one shows only its title) and presses its button. */
  async function pressStepButton(title: string, button: string): Promise<void> {
    const s = step(title);
    await s.waitFor({ timeout: 30_000 });
    const action = s.locator('.monaco-button', { hasText: button }).first();
    if (!(await action.isVisible())) await s.locator('.step-title').first().click();
    await action.waitFor({ state: 'visible', timeout: 15_000 });
    await action.click();
  }
  const runRow = (text: string | RegExp): Locator => page().locator('.part.sidebar .monaco-list-row', { hasText: text }).first();

  it('opens the walkthrough in an empty folder and sets the workspace up from it', async function () {
    await wb.runCommand('Coevolve: Get Started');
    await page().locator('.gettingStartedContainer', { hasText: 'Get started with Coevolve' }).waitFor({ timeout: 30_000 });
    for (const title of ['Set up the workspace', 'Run the demo', 'Is it working? Open the dashboard', 'Step through a rollout', 'Curate and export']) {
      await step(title).waitFor({ timeout: 15_000 });
    }
    await wb.screenshot('walkthrough-start');
    await pressStepButton('Set up the workspace', 'Set Up Workspace');
    await wb.notification(/example environments, users and run configs written to environments\//).waitFor({ timeout: 30_000 });
    assert.ok(existsSync(join(folder, 'environments/demo.run.yaml')), 'the demo run config is written into the folder');
    // The config opens beside the walkthrough, which stays on screen with its next step (a preview in its place
    // used to close it).
    await page().locator('.tab', { hasText: 'demo.run.yaml' }).waitFor({ timeout: 15_000 });
    await step('Run the demo').waitFor({ state: 'visible', timeout: 15_000 });
    await wb.screenshot('walkthrough-set-up');
    // The demo's five generations take minutes on a loaded two-core machine; two show every view and still put a
    // generation after the first (the one an off-by-one numbering gets wrong). Edited on disk, as a user would.
    const config = join(folder, 'environments/demo.run.yaml');
    writeFileSync(config, readFileSync(config, 'utf8').replace(/^generations: 5\b/m, 'generations: 2'));
    assert.match(readFileSync(config, 'utf8'), /^generations: 2\b/m);
  });

  it('runs the demo from the walkthrough: the tree, the progress toast and the CLI name the same generation', async function () {
    // The log and the Runs view are opened first, so that the whole run is watched from its start: a quiet machine
    // plays the two generations in under a minute, and a test that opened them after pressing the button saw
    // generation 1 end before it looked.
    await wb.runCommand('Coevolve: Show Log');
    await wb.openViewContainer('Coevolve');
    await page().locator('.tab', { hasText: 'Walkthrough: Coevolve' }).first().click();
    await pressStepButton('Run the demo', 'Run the Demo');
    const toast = wb.notification(/Coevolve: running demo\.run\.yaml/);
    await toast.waitFor({ timeout: 60_000 });
    await runRow(/^demo · /).waitFor({ timeout: 60_000 });
    await runRow(/^demo · /).click();
    // While the second generation plays, all three say "generation 1" (of two): the toast with the count beside
    // it, the tree's row of that generation playing, and the CLI's own progress line in the log.
    const live = toast.filter({ hasText: 'generation 1 (2 of 2)' });
    await live.waitFor({ timeout: 600_000 });
    const genRow = runRow(/^Generation 1/);
    await genRow.waitFor({ timeout: 30_000 });
    assert.match((await genRow.textContent()) ?? '', /playing \d+\/\d+ rollouts/, 'the tree shows generation 1 playing');
    const toastText = (await toast.textContent()) ?? '';
    assert.doesNotMatch(toastText, /generation 2\b/, `the toast names no later generation: ${toastText}`);
    // The CLI's line is read from the extension's log file (what the Output view shows): Monaco draws only the
    // lines on screen, and the CLI's later lines push it out of view.
    const cliLog = await waitForLogLine(/\[cli\] generation 1 \(2 of 2\): playing \d+ rollouts/, 30_000);
    assert.doesNotMatch(cliLog, /\[cli\] generation 2\b/, 'the CLI names no generation 2 in a two-generation run');
    await wb.screenshot('walkthrough-run-live');
    await wb.notification(/Coevolve: run finished \(demo-/).waitFor({ timeout: 600_000 });
    // Finished: the run is completed and no generation is still drawn as playing.
    await page().waitForFunction(() => [...document.querySelectorAll('.part.sidebar .monaco-list-row')].some((r) => /^demo · .*completed · 2\/2 generations/.test(r.textContent ?? '')), undefined, { timeout: 30_000 });
    const rows = await page().locator('.part.sidebar .monaco-list-row').allTextContents();
    assert.ok(!rows.some((t) => /playing/.test(t)), `no generation playing after the run: ${JSON.stringify(rows)}`);
    await wb.screenshot('walkthrough-run-finished');
    // Room for the dashboard, as a user makes it: the log panel hidden, the config's editor closed.
    await wb.runCommand('View: Hide Panel');
    const configTab = page().locator('.tab', { hasText: 'demo.run.yaml' });
    await configTab.hover();
    await configTab.locator('.tab-actions .action-label').first().click();
    await configTab.waitFor({ state: 'detached', timeout: 15_000 });
    await page().locator('.tab', { hasText: 'Walkthrough: Coevolve' }).waitFor({ timeout: 15_000 });
  });

  it('opens the dashboard from the walkthrough: the verdict, charts with legends, bars drawn to scale, no CSP violation', async function () {
    await page().locator('.tab', { hasText: 'Walkthrough: Coevolve' }).first().click();
    await pressStepButton('Is it working? Open the dashboard', 'Open Run Dashboard');
    const pick = page().locator('.quick-input-list .monaco-list-row', { hasText: 'demo' }).first();
    if (await pick.waitFor({ timeout: 5_000 }).then(() => true, () => false)) await pick.click();
    const dash = await wb.webview('#charts', 'the dashboard');
    await dash.locator('#charts canvas').nth(5).waitFor({ timeout: 30_000 });
    const runKey = readdirSync(join(folder, 'runs')).find((n) => n.startsWith('demo-'));
    assert.ok(runKey, 'the run directory is in the folder the walkthrough set up');
    assert.match((await dash.locator('#verdict').textContent()) ?? '', /generation 1/, 'the verdict speaks of the last generation');
    // Every chart's key is above its plot and shows the last generation's values without a pointer (never "--").
    const legends = await drawnLegends(dash);
    assert.ok(legends.length >= 8, `charts with legends: ${legends.map((l) => l.chart).join(', ')}`);
    for (const l of legends) {
      assert.ok(l.gapAbovePlot >= 0, `the ${l.chart} chart's key is above its plot (${l.gapAbovePlot.toFixed(1)} px)`);
      assert.match(l.text, /generation\s*g1/, `the ${l.chart} key shows generation 1: ${l.text}`);
      assert.doesNotMatch(l.text, /--/, `the ${l.chart} key has values: ${l.text}`);
    }
    const classes = legends.find((l) => l.chart === 'classes');
    for (const c of ['frontier', 'too easy', 'too hard']) assert.ok(classes?.text.includes(c), `the Pairs by class key names "${c}": ${classes?.text}`);
    await wb.screenshot('walkthrough-dashboard');
    await dash.locator('vscode-tab-header[data-tab="lineage"]').click();
    await dash.locator('#lineage-environment .lineage-node').first().waitFor({ timeout: 30_000 });
    assert.match((await dash.locator('#difficulty-key').textContent()) ?? '', /Design level: .* Measured difficulty: .* in logits/);
    await wb.screenshot('walkthrough-dashboard-lineage');
    await dash.locator('vscode-tab-header[data-tab="rollouts"]').click();
    await dash.locator('#rollouts .rollout-row[data-id]').first().waitFor({ timeout: 30_000 });
    await assertBarsToScale(dash, '#rollouts', 'the dashboard\'s rollout table');
    assert.deepEqual(await cspViolations(dash), [], 'no securitypolicyviolation in the dashboard');
    await wb.screenshot('walkthrough-dashboard-rollouts');
  });

  it('opens a failed rollout from the table: reward terms and components drawn to scale (zero and negative too), no CSP violation', async function () {
    // The rollout whose components reach furthest below zero (a negative rubric), else a failed one: the bars that
    // a dropped inline style used to draw at full width.
    const runDir = join(folder, 'runs', readdirSync(join(folder, 'runs')).find((n) => n.startsWith('demo-'))!);
    const records = readdirSync(join(runDir, 'rollouts')).flatMap((g) => readdirSync(join(runDir, 'rollouts', g)).filter((f) => f.endsWith('.json')).map((f) => JSON.parse(readFileSync(join(runDir, 'rollouts', g, f), 'utf8')) as { id: string; success: boolean; rewards: Record<string, number> }));
    const low = (r: (typeof records)[number]): number => Math.min(...Object.values(r.rewards));
    const pick = records.filter((r) => !r.success).sort((a, b) => low(a) - low(b))[0];
    assert.ok(pick, 'the demo run has a failed rollout');
    const dash = await wb.webview('#rollouts', 'the dashboard\'s rollout table');
    // The table draws only the rows on screen: scroll down to the chosen one, as a user would.
    const open = dash.locator(`#rollouts button[title="open ${pick.id}"]`);
    for (let i = 0; i < 40 && !(await open.count()); i++) {
      await dash.locator('#rollouts .rollout-rows').evaluate((el) => el.scrollBy(0, Math.max(100, el.clientHeight * 0.8)));
      await page().waitForTimeout(400);
    }
    await open.click();
    const viewer = await wb.webview('#steps', `the rollout viewer of ${pick.id}`);
    await viewer.locator('.step').first().waitFor();
    await viewer.locator('vscode-tab-header[data-tab="reward"]').click();
    await viewer.locator('#reward-components').waitFor();
    const bars = await drawnBars(viewer);
    assert.ok(bars.values.some((v) => v <= 0), `a zero or negative component is among the bars checked: ${bars.values.join(', ')}`);
    await assertBarsToScale(viewer, 'body', `the reward tab of ${pick.id}`);
    assert.deepEqual(await cspViolations(viewer), [], 'no securitypolicyviolation in the rollout viewer');
    await wb.screenshot('walkthrough-rollout-reward');
  });
});

/** What the workbench shows, for a failure message: the editor tabs and the first text of every frame. */
/** Waits until the extension's "Coevolve" log file (under code-server's user data) has a line matching `pattern`. */
async function waitForLogLine(pattern: RegExp, timeout: number): Promise<string> {
  const userData = process.env.COEVOLVE_E2E_USER_DATA;
  if (!userData) throw new Error('COEVOLVE_E2E_USER_DATA is not set: run through test/e2e/run.mjs');
  const logs = (): string[] => {
    const root = join(userData, 'logs');
    if (!existsSync(root)) return [];
    return (readdirSync(root, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
      .filter((d) => d.isFile() && /Coevolve\.log$/.test(d.name))
      .map((d) => join(d.parentPath, d.name));
  };
  const deadline = Date.now() + timeout;
  for (;;) {
    const text = logs().map((f) => readFileSync(f, 'utf8')).join('\n');
    if (pattern.test(text)) return text;
    if (Date.now() > deadline) throw new Error(`no line ${String(pattern)} in the extension's log (${logs().join(', ') || 'no Coevolve.log under ' + userData}); it ends:\n${text.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function assertBarsToScale(frame: Frame, root: string, where: string): Promise<void> {
  const bars = await drawnBars(frame, root);
  assert.ok(bars.checked > 0, `${where} draws bars`);
  assert.ok(bars.values.some((v) => v > 0), `${where}: a bar with a positive value is among those checked: ${bars.values.join(', ')}`);
  assert.deepEqual(bars.mismatches, [], `${where}: every bar's drawn width matches its value`);
}
