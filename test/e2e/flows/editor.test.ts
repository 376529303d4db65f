import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { makeRun } from '../../fixtures/makeRun.js';
import { cspViolations, drawnBars } from '../../support/rendered.js';
import { openWorkbench, type E2eSession } from '../support/session.js';

describe('e2e: Runs tree, rollout viewer and dashboard on a fixture run', function () {
  let session: E2eSession;

  before(async function () {
    this.timeout(120_000);
    const workspace = process.env.COEVOLVE_E2E_WORKSPACE;
    if (!workspace) throw new Error('COEVOLVE_E2E_WORKSPACE is not set: run through test/e2e/run.mjs');
    await makeRun(join(workspace, 'runs'), { name: 'fixture', generations: 4, pairsPerGeneration: 4, k: 3, hintPlays: 1 });
    await makeRun(join(workspace, 'runs'), { name: 'baseline', seed: 3, generations: 4, pairsPerGeneration: 4, k: 3, hintPlays: 1, startedAt: '2025-11-29T09:00:00.000Z' });
    session = await openWorkbench();
  });

  after(async function () {
    await session?.browser.close();
  });

  const row = (text: string | RegExp) => session.workbench.page.locator('.part.sidebar .monaco-list-row', { hasText: text });

  it('shows the run tree with generations, pairs and rollouts and their descriptions', async function () {
    const wb = session.workbench;
    await wb.openViewContainer('Coevolve');
    await row(/^fixture · /).first().waitFor({ state: 'visible' });
    await row(/^fixture · /).first().click();
    await row('Generation 0').first().click();
    await row('Generation 1').first().waitFor({ state: 'visible' });
    await row(/log-triage level 1 × Operator terse-ops \(terse ops\)/).first().click();
    await row('rollout 0').first().waitFor({ state: 'visible' });
    const texts = await session.workbench.page.locator('.part.sidebar .monaco-list-row').allTextContents();
    assert.ok(texts.some((t) => /completed · 4\/4 generations · \d+ rollouts · success \d+%/.test(t)), `run row has its description: ${JSON.stringify(texts.slice(0, 3))}`);
    assert.ok(texts.some((t) => /success \d+% · pass\^3 \d+% · in band/.test(t)), 'generation rows describe success, pass^k and band');
    assert.ok(texts.some((t) => /reward \d\.\d\d · \d+ steps/.test(t)), 'rollout rows show reward and steps');
    await wb.screenshot('editor-runs-tree');
  });

  it('opens a rollout: dialogue, terminal blocks, step controls; markup in messages stays inert text', async function () {
    const page = session.workbench.page;
    await row('rollout 0').first().click();
    const frame = await session.workbench.webview('#steps', 'the rollout viewer');
    await frame.locator('.step').first().waitFor({ state: 'visible' });
    // The fixture's first user message carries <script> and <img onerror>: it must show as text, create no element.
    const first = frame.locator('.step.user .message').first();
    assert.match((await first.textContent()) ?? '', /<script>window\.__coevolvePwned = 1<\/script>/);
    assert.match((await first.textContent()) ?? '', /<img src=x onerror=/);
    assert.equal(await frame.locator('#steps script, #steps img').count(), 0, 'no script or img element inside the transcript');
    assert.equal(await frame.evaluate(() => (window as unknown as { __coevolvePwned?: number }).__coevolvePwned), undefined, 'nothing ran');
    assert.ok((await frame.locator('.terminal .term-cmd').count()) > 0, 'commands render as terminal blocks');
    // Step through with the keyboard, then jump to the first failed command.
    await frame.locator('#position').click();
    await page.keyboard.press('g');
    for (let i = 0; i < 3; i++) await page.keyboard.press('j');
    await frame.locator('#position', { hasText: 'step 4 /' }).waitFor();
    await session.workbench.screenshot('editor-rollout-viewer');
    await page.keyboard.press('e');
    // e jumps to the first step with an error (the fixture's hostile rollout has a failed command).
    await frame.locator('.step.current.has-error .terminal.failed').waitFor();
    await frame.locator('#search input').fill('ERROR').catch(async () => {
      await frame.locator('#search').click();
      await page.keyboard.type('ERROR');
    });
    await frame.locator('#match-count', { hasText: /\d+ match/ }).waitFor();
    await frame.locator('vscode-tab-header[data-tab="reward"]').click();
    await frame.locator('#verifier-output').waitFor();
    // The fixture's total is above 1 (1.11): the scale widens to hold it, and every bar is drawn to its value.
    const bars = await drawnBars(frame);
    assert.ok(bars.checked >= 6 && bars.values.some((v) => v > 1), `reward bars checked: ${bars.values.join(', ')}`);
    assert.deepEqual(bars.mismatches, [], 'every reward bar is drawn to its value');
    await frame.locator('vscode-tab-header[data-tab="specs"]').click();
    await frame.locator('#specs').waitFor();
    await session.workbench.screenshot('editor-rollout-specs');
    assert.deepEqual(await cspViolations(frame), [], 'no securitypolicyviolation in the rollout viewer (hostile transcript included)');
  });

  it('opens the dashboard with per-generation charts, lineage and a comparison', async function () {
    const wb = session.workbench;
    await wb.runCommandAndPick('Coevolve: Open Run Dashboard', 'fixture');
    const frame = await wb.webview('#charts', 'the dashboard');
    await frame.locator('#charts canvas').nth(5).waitFor();
    assert.ok((await frame.locator('#charts figure.chart').count()) >= 8);
    await wb.screenshot('editor-dashboard-charts');
    await frame.locator('vscode-tab-header[data-tab="lineage"]').click();
    await frame.locator('#lineage-environment .lineage-node').first().waitFor();
    const lineage = (await frame.locator('#lineage-environment').textContent()) ?? '';
    assert.match(lineage, /harder:/, 'children show the operator that made them');
    assert.match(lineage, /\d+\/\d+ passed \(\d+ %\)/, 'played specs show their success with counts');
    await wb.screenshot('editor-dashboard-lineage');
    await frame.locator('vscode-tab-header[data-tab="compare"]').click();
    await frame.locator('#compare-generations').waitFor();
    await wb.screenshot('editor-dashboard-compare');
    await frame.locator('vscode-tab-header[data-tab="rollouts"]').click();
    await frame.locator('#rollouts .rollout-row[data-id]').first().waitFor();
    const bars = await drawnBars(frame, '#rollouts');
    assert.ok(bars.checked > 0, 'the rollout table draws reward bars');
    assert.deepEqual(bars.mismatches, [], 'every reward bar of the table is drawn to its value');
    assert.deepEqual(await cspViolations(frame), [], 'no securitypolicyviolation in the dashboard');
  });
});
