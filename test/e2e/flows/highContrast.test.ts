import * as assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeRun } from '../../fixtures/makeRun.js';
import { copyFixtureWorkspace, launchBrowser, type BrowserSession } from '../../support/codeServer.js';
import { contrastRatio, cspViolations, drawnBars } from '../../support/rendered.js';
import { required } from '../support/session.js';
import { Workbench } from '../support/workbench.js';

const root = join(__dirname, '../../..');

/**
 * The panels in VS Code's own high-contrast themes, chosen the way a user keeps one for a folder (the workspace's
 * `workbench.colorTheme`): the theme's colours reach the webview, its text stays readable and every bar is outlined
 * and still drawn to its value.
 */
describe('e2e: the dashboard in the editor\'s high-contrast themes', function () {
  this.timeout(240_000);
  for (const [theme, kind, background] of [['Default High Contrast', 'vscode-high-contrast', '#000000'], ['Default High Contrast Light', 'vscode-high-contrast-light', '#ffffff']] as const) {
    it(`${theme}: readable text, bars outlined and to scale, no CSP violation`, async function () {
      const workspace = copyFixtureWorkspace(join(root, 'test/fixtures/workspace'));
      let browser: BrowserSession | undefined;
      try {
        mkdirSync(join(workspace, '.vscode'), { recursive: true });
        writeFileSync(join(workspace, '.vscode/settings.json'), JSON.stringify({ 'workbench.colorTheme': theme }));
        await makeRun(join(workspace, 'runs'), { name: 'fixture', generations: 2, pairsPerGeneration: 3, k: 3, hintPlays: 1 });
        browser = await launchBrowser(process.env.COEVOLVE_CHROMIUM ?? '/usr/bin/chromium', { width: 1400, height: 850 });
        const wb = new Workbench(browser.page, required('COEVOLVE_E2E_SCREENSHOTS'));
        await wb.open(`${required('COEVOLVE_E2E_URL')}/?${new URLSearchParams({ folder: workspace }).toString()}`);
        await wb.openViewContainer('Coevolve');
        await wb.page.locator('.part.sidebar .monaco-list-row', { hasText: /^fixture · / }).first().waitFor({ state: 'visible', timeout: 60_000 });
        await wb.runCommand('Coevolve: Open Run Dashboard');
        // With one run in the workspace the command opens its dashboard without asking which run.
        const frame = await wb.webview('#charts', `the dashboard (${kind})`);
        await frame.waitForFunction((k) => document.body.dataset['vscodeThemeKind'] === k, kind, { timeout: 30_000 });
        await frame.locator('vscode-tab-header[data-tab="rollouts"]').click();
        await frame.locator('#rollouts .rollout-row[data-id]').first().waitFor();
        // What Chromium drew inside the webview: the theme's variables as VS Code set them, the bars' outline.
        const drawn = await frame.evaluate(() => {
          const body = getComputedStyle(document.body);
          const text = ['--vscode-foreground', '--vscode-descriptionForeground', '--vscode-textLink-foreground', '--vscode-errorForeground'].map((v) => [v, body.getPropertyValue(v).trim()]);
          const bar = document.querySelector('#rollouts .vbar') as HTMLElement | null;
          return { text, editorBackground: body.getPropertyValue('--vscode-editor-background').trim(), outline: bar ? getComputedStyle(bar).outlineStyle : 'no bar' };
        });
        assert.equal(drawn.editorBackground.toLowerCase(), background, `${kind}: the theme's background reaches the webview`);
        for (const [name, value] of drawn.text as [string, string][]) {
          assert.ok(contrastRatio(value, drawn.editorBackground) >= 4.5, `${kind}: ${name} ${value} on ${drawn.editorBackground} has contrast ${contrastRatio(value, drawn.editorBackground).toFixed(2)}`);
        }
        assert.equal(drawn.outline, 'solid', `${kind}: high contrast outlines every bar`);
        const bars = await drawnBars(frame, '#rollouts');
        assert.ok(bars.checked > 0, `${kind}: the rollout table draws reward bars`);
        assert.deepEqual(bars.mismatches, [], `${kind}: every bar drawn to its value`);
        await wb.screenshot(`editor-dashboard-${kind}`);
        assert.deepEqual(await cspViolations(frame), [], `no securitypolicyviolation in ${kind}`);
      } finally {
        await browser?.close();
        rmSync(workspace, { recursive: true, force: true });
      }
    });
  }
});
