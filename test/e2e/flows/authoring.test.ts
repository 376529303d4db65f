import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import type { Locator } from 'playwright-core';
import { needService } from '../../support/services.js';
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

  async function openFile(name: string): Promise<void> {
    const page = session.workbench.page;
    await page.keyboard.press('Control+P');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor();
    await input.fill(name);
    await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor();
    await page.keyboard.press('Enter');
    await page.locator('.tab.active', { hasText: name }).waitFor();
  }

  /** The editor text on screen of a given line content, for pointing at a word. */
  function editorLine(text: string): Locator {
    return session.workbench.page.locator('.monaco-editor .view-line', { hasText: text }).first();
  }

  it('underlines the unknown key and shows the message and the field description on hover', async function () {
    const page = session.workbench.page;
    await openFile('authoring-demo.env.yaml');
    await page.locator('.monaco-editor .squiggly-error').first().waitFor({ timeout: 30_000 });
    const word = editorLine('memryMb: 128').locator('span span', { hasText: /^memryMb$/ }).first();
    const box = await word.boundingBox();
    assert.ok(box, 'the typo is on screen');
    // Several small moves: the editor shows a hover after the pointer rests on a word it has moved onto.
    await page.mouse.move(box.x - 20, box.y + box.height / 2);
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 5 });
    const hover = page.locator('.monaco-hover:visible', { hasText: 'unknown key "memryMb"' });
    await hover.waitFor({ timeout: 15_000 });
    assert.match((await hover.textContent()) ?? '', /did you mean "memoryMb"/);
    await session.workbench.screenshot('authoring-squiggle-hover');

    // Hover on a valid key: the zod description, what it accepts and its default.
    // The innermost span is the key's token; outer spans cover the whole line.
    const pids = editorLine('pids: 2').locator('span span', { hasText: /^pids$/ }).first();
    const pbox = await pids.boundingBox();
    assert.ok(pbox);
    await page.mouse.move(pbox.x + pbox.width / 2, pbox.y + pbox.height / 2, { steps: 5 });
    const describe = page.locator('.monaco-hover:visible', { hasText: 'Maximum number of processes' });
    await describe.waitFor({ timeout: 15_000 });
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
    await openFile('authoring-demo.env.yaml');
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
    const row = page.locator('.part.sidebar .monaco-list-row', { hasText: 'authoring-demo' }).first();
    await row.waitFor({ timeout: 15_000 });
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
    await openFile('authoring-demo.env.yaml');
    await page.locator('.monaco-editor .codelens-decoration a', { hasText: 'Validate' }).first().click();
    await session.workbench.notification(/the oracle passes and an empty agent fails/).waitFor({ timeout: 150_000 });
    await page.locator('.monaco-editor .codelens-decoration', { hasText: 'Validated' }).first().waitFor({ timeout: 15_000 });
    await session.workbench.openViewContainer('Testing');
    await page.locator('.part.sidebar .monaco-list-row', { hasText: 'authoring-demo' }).first().waitFor({ timeout: 15_000 });
    await session.workbench.screenshot('authoring-validated');
  });
});
