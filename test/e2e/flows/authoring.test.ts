import * as assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import type { Locator } from 'playwright-core';
import { needService } from '../../support/services.js';
import { makeRun } from '../../fixtures/makeRun.js';
import { appendCuration } from '../../../src/store/curation.js';
import { openRun } from '../../../src/store/runReader.js';
import { openWorkbench, type E2eSession } from '../support/session.js';

// A spec with one unknown key (a typo) and one value out of range: two squiggles the user can hover.
const typoSpec = `# An environment with two mistakes, for the authoring screenshots.
apiVersion: coevolve/v1
kind: Environment
id: authoring-demo
title: Count the lines of the user's report
instruction: |
  A user needs a number from one of the reports in reports/. Ask them which report
  they mean, write the answer to answer.txt, then submit.
sandbox:
  limits:
    memryMb: 128
    pids: 2
  files:
    - path: reports/tuesday.txt
      content: |
        delta
        epsilon
verifier:
  script: |
    [ "$(tr -d ' \\n' < answer.txt)" = "2" ]
oracle:
  script: |
    wc -l < reports/tuesday.txt | tr -d ' ' > answer.txt
user:
  request: How many lines does my report have?
  goal: The line count of the Tuesday report is in answer.txt.
`;

describe('e2e: authoring specs in the editor', function () {
  let session: E2eSession;

  before(async function () {
    session = await openWorkbench();
    writeFileSync(join(session.workspace, 'authoring-demo.env.yaml'), typoSpec);
  });

  after(async function () {
    await session?.browser.close();
  });

  /** The editor text on screen of a given line content, for pointing at a word. */
  function editorLine(text: string): Locator {
    return session.workbench.page.locator('.monaco-editor .view-line', { hasText: text }).first();
  }

  /**
   * Shows the hover of a word: the pointer resting on it, and if the workbench (busy on a loaded machine) does not
   * react, the cursor put in the word and the Show Hover keybinding (Ctrl+K Ctrl+I). Retried a few times.
   */
  async function hoverUntil(target: Locator, hasText: string): Promise<Locator> {
    const page = session.workbench.page;
    const hover = page.locator('.monaco-hover:visible', { hasText });
    for (let attempt = 0; attempt < 3; attempt++) {
      const box = await target.boundingBox();
      assert.ok(box, 'the word is on screen');
      await page.mouse.move(box.x - 40, Math.max(0, box.y - 40));
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 5 });
      if (await visibleWithin(hover, 5_000)) return hover;
      await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
      await page.keyboard.press('Control+K');
      await page.keyboard.press('Control+I');
      if (await visibleWithin(hover, 5_000)) return hover;
      await page.keyboard.press('Escape');
    }
    await hover.waitFor({ timeout: 5_000 });
    return hover;
  }

  async function visibleWithin(locator: Locator, timeout: number): Promise<boolean> {
    try {
      await locator.waitFor({ timeout });
      return true;
    } catch {
      return false;
    }
  }

  it('underlines the unknown key and shows the message and the field description on hover', async function () {
    const page = session.workbench.page;
    await session.workbench.openFile('authoring-demo.env.yaml');
    await page.locator('.monaco-editor .squiggly-error').first().waitFor({ timeout: 30_000 });
    const word = editorLine('memryMb: 128').locator('span span', { hasText: /^memryMb$/ }).first();
    const hover = await hoverUntil(word, 'unknown key "memryMb"');
    assert.match((await hover.textContent()) ?? '', /did you mean "memoryMb"/);
    await session.workbench.screenshot('authoring-squiggle-hover');

    // Hover on a valid key: the zod description, what it accepts and its default.
    // The innermost span is the key's token; outer spans cover the whole line.
    const pids = editorLine('pids: 2').locator('span span', { hasText: /^pids$/ }).first();
    const describe = await hoverUntil(pids, 'Maximum number of processes');
    assert.match((await describe.textContent()) ?? '', /an integer between 8 and 4096/);
    await session.workbench.screenshot('authoring-hover-description');
    await page.mouse.move(1300, 800);
  });

  it('lists the problems with their positions in the Problems panel', async function () {
    const wb = session.workbench;
    await wb.openProblemsPanel();
    const rows = wb.problemRows();
    await rows.filter({ hasText: 'memryMb' }).first().waitFor({ timeout: 15_000 });
    const texts = await rows.allTextContents();
    assert.ok(texts.some((t) => /unknown key "memryMb"/.test(t) && /\[Ln 11, Col 5\]/.test(t)), `the unknown key at 11:5; rows: ${JSON.stringify(texts)}`);
    assert.ok(texts.some((t) => /sandbox\.limits\.pids: expected an integer between 8 and 4096, got 2/.test(t)), 'the out-of-range pids');
    await wb.screenshot('authoring-problems-panel');
  });

  it('shows Validate, Play one rollout and Evolve a child above an environment spec', async function () {
    const page = session.workbench.page;
    await session.workbench.openFile('authoring-demo.env.yaml');
    const lens = page.locator('.monaco-editor .codelens-decoration');
    await lens.filter({ hasText: 'Validate' }).first().waitFor({ timeout: 30_000 });
    const text = (await lens.allTextContents()).join(' ');
    assert.match(text, /Play one rollout/);
    assert.match(text, /Evolve a child/);
    await session.workbench.screenshot('authoring-codelens');
  });

  it('fixes the typo with the quick fix, and the Environments view shows the spec as valid once fixed', async function () {
    const page = session.workbench.page;
    const word = editorLine('memryMb: 128').locator('span span', { hasText: /^memryMb$/ }).first();
    await word.click();
    await page.keyboard.press('Control+.');
    const fix = page.locator('.action-widget .monaco-list-row', { hasText: 'Change "memryMb" to "memoryMb"' });
    await fix.first().waitFor({ timeout: 15_000 });
    await session.workbench.screenshot('authoring-quick-fix');
    await page.keyboard.press('Enter');
    await editorLine('memoryMb: 128').waitFor();
    // Fix the other mistake by typing, as a user would.
    const pidsValue = editorLine('pids: 2').locator('span span', { hasText: /^2$/ }).last();
    await pidsValue.dblclick();
    await page.keyboard.type('32');
    await page.keyboard.press('Control+S');
    await session.workbench.openViewContainer('Coevolve');
    await session.workbench.expandView('Environments');
    const row = await session.workbench.viewRow('Environments', 'authoring-demo');
    await page.waitForFunction(() => document.querySelectorAll('.monaco-editor .squiggly-error').length === 0, undefined, { timeout: 15_000 });
    assert.doesNotMatch((await row.textContent()) ?? '', /error/);
    await session.workbench.screenshot('authoring-environments-view');
  });

  it('validates the spec in a sandbox from its lens: pass in the gutter, the Test Explorer and the lens', async function () {
    this.timeout(180_000);
    await needService(this, 'docker', async () => {
      const r = spawnSync('docker', ['image', 'inspect', 'coevolve/busybox:latest'], { encoding: 'utf8' });
      return r.status === 0 ? undefined : `no coevolve/busybox image (${(r.stderr || r.error?.message || '').trim()})`;
    });
    const page = session.workbench.page;
    await session.workbench.openFile('authoring-demo.env.yaml');
    await page.locator('.monaco-editor .codelens-decoration a', { hasText: 'Validate' }).first().click();
    await session.workbench.notification(/the oracle passes and an empty agent fails/).waitFor({ timeout: 150_000 });
    await page.locator('.monaco-editor .codelens-decoration', { hasText: 'Validated' }).first().waitFor({ timeout: 15_000 });
    await session.workbench.openViewContainer('Testing');
    await page.locator('.part.sidebar .monaco-list-row', { hasText: 'authoring-demo' }).first().waitFor({ timeout: 15_000 });
    await session.workbench.screenshot('authoring-validated');
  });
});

describe('e2e: curation and the Dataset view', function () {
  let session: E2eSession;
  let runDir: string;

  before(async function () {
    this.timeout(60_000);
    session = await openWorkbench();
    runDir = await makeRun(join(session.workspace, 'runs'), { name: 'curated', generations: 2, pairsPerGeneration: 2, k: 2, hintPlays: 0 });
    const rollouts = [...openRun(runDir).rollouts.values()];
    const at = (s: number): string => new Date(Date.UTC(2026, 10, 30, 12, 0, s)).toISOString();
    await appendCuration(runDir, [
      { at: at(1), target: { kind: 'rollout', id: rollouts[0]!.id }, action: 'accept', author: 'e2e' },
      { at: at(2), target: { kind: 'rollout', id: rollouts[0]!.id }, action: 'label', label: 'clarification', author: 'e2e' },
      { at: at(3), target: { kind: 'rollout', id: rollouts[1]!.id }, action: 'reject', text: 'guessed the day', author: 'e2e' },
      { at: at(4), target: { kind: 'rollout', id: rollouts[2]!.id }, action: 'comment', text: 'asks before acting', author: 'e2e' },
    ]);
  });

  after(async function () {
    await session?.browser.close();
    rmSync(runDir, { recursive: true, force: true });
  });

  it('lists curated rollouts with verdict, reward, generation and labels', async function () {
    const wb = session.workbench;
    await wb.openViewContainer('Coevolve');
    const page = wb.page;
    // The Runs view takes the height; collapse it so the Dataset view shows its rows.
    await wb.viewHeader('Runs').click();
    const row = page.locator('.part.sidebar .monaco-list-row', { hasText: 'accepted · reward' }).first();
    await row.waitFor({ timeout: 30_000 });
    assert.match((await row.textContent()) ?? '', /#clarification/);
    await page.locator('.part.sidebar .monaco-list-row', { hasText: 'rejected · reward' }).first().waitFor();
    await wb.screenshot('dataset-view');
  });

  it('offers Accept, Reject, Label and Comment on a rollout of the Runs tree', async function () {
    const wb = session.workbench;
    const page = wb.page;
    await wb.viewHeader('Runs').click();
    // Move the pointer off the header, whose toolbar hover ("Filter Runs…") would otherwise cover the first row.
    await page.mouse.move(1, 1);
    // Rows of the Runs pane only: the Dataset view lists the same run name.
    const runsPane = page.locator('.part.sidebar .pane', { has: page.locator('.pane-header[aria-label^="Runs"]') });
    const row = (text: string | RegExp): Locator => runsPane.locator('.monaco-list-row', { hasText: text }).first();
    await row(/^curated/).waitFor({ timeout: 30_000 });
    await row(/^curated/).click();
    await row('Generation 0').click();
    const pair = runsPane.locator('.monaco-list-row[aria-level="3"]').first();
    await pair.waitFor({ timeout: 15_000 });
    await pair.click();
    const rollout = row('rollout 0');
    await rollout.waitFor({ timeout: 15_000 });
    await rollout.click({ button: 'right' });
    const menu = page.locator('.context-view .monaco-menu');
    await menu.waitFor({ timeout: 15_000 });
    const text = (await menu.textContent()) ?? '';
    for (const item of ['Accept', 'Reject', 'Label…', 'Comment…']) assert.ok(text.includes(item), `"${item}" in the menu: ${text}`);
    await wb.screenshot('curation-context-menu');
    await page.keyboard.press('Escape');
  });
});
