import * as assert from 'node:assert/strict';
import { cpSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { makeRun } from '../../fixtures/makeRun.js';
import { copyFixtureWorkspace, installExtension, launchBrowser, startCodeServer, type BrowserSession, type CodeServer } from '../../support/codeServer.js';
import { Workbench } from '../support/workbench.js';

const root = join(__dirname, '../../..');

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the e2e flows through test/e2e/run.mjs`);
  return value;
}

/**
 * A really untrusted window: its own code-server with workspace trust on (the other flows turn it off), the folder
 * never trusted, so VS Code opens it in restricted mode as it would a cloned repository.
 */
describe('e2e: an untrusted window views runs and validates specs, and can run nothing', function () {
  this.timeout(180_000);
  let server: CodeServer;
  let browser: BrowserSession;
  let wb: Workbench;
  let workspace: string;
  const runsBefore = (): string[] => readdirSync(join(workspace, 'runs')).sort();
  let before0: string[];

  before(async function () {
    workspace = copyFixtureWorkspace(join(root, 'test/fixtures/workspace'));
    cpSync(join(root, 'environments'), join(workspace, 'examples'), { recursive: true });
    await makeRun(join(workspace, 'runs'), { name: 'fixture', generations: 2, pairsPerGeneration: 2, k: 2 });
    before0 = runsBefore();
    const codeServer = required('COEVOLVE_E2E_CODE_SERVER');
    server = await startCodeServer({ codeServer, workspaceTrust: true, prepare: (dirs) => installExtension(codeServer, required('COEVOLVE_E2E_VSIX'), dirs) });
    browser = await launchBrowser(process.env.COEVOLVE_CHROMIUM ?? '/usr/bin/chromium', { width: 1400, height: 850 });
    wb = new Workbench(browser.page, required('COEVOLVE_E2E_SCREENSHOTS'));
    await wb.open(`${server.url}/?${new URLSearchParams({ folder: workspace }).toString()}`);
  });

  after(async function () {
    await browser?.close();
    await server?.stop();
    if (workspace) rmSync(workspace, { recursive: true, force: true });
  });

  const row = (text: string | RegExp) => wb.page.locator('.part.sidebar .monaco-list-row', { hasText: text });

  it('opens in restricted mode, lists the run and opens a rollout', async function () {
    const page = wb.page;
    await page.locator('.statusbar', { hasText: 'Restricted Mode' }).first().waitFor({ timeout: 30_000 });
    await wb.openViewContainer('Coevolve');
    await row(/^fixture · /).first().click();
    await row('Generation 0').first().click();
    await row(/ × /).first().click();
    await row('rollout 0').first().click();
    const frame = await wb.webview('#steps', 'the rollout viewer in restricted mode');
    await frame.locator('.step').first().waitFor();
    const violations = await frame.evaluate(() => window.__coevolveCspViolations ?? []);
    assert.deepEqual(violations, [], 'the rollout viewer records no securitypolicyviolation in an untrusted window');
    await wb.screenshot('untrusted-rollout-viewer');
  });

  it('validates the workspace specs', async function () {
    await wb.runCommand('Coevolve: Validate Workspace Specs');
    await wb.notification(/spec files? checked/).waitFor({ state: 'visible', timeout: 60_000 });
  });

  it('offers no command that runs code from the workspace, and the spec lens asks for trust instead', async function () {
    const page = wb.page;
    // Each command that would start a run, a sandbox or a trainer hook: not in the palette of an untrusted window.
    for (const title of ['Coevolve: Start Run', 'Coevolve: Run the Demo', 'Coevolve: Resume Run', 'Coevolve: Re-run Rollout', 'Coevolve: Validate Environment in Sandbox', 'Coevolve: Play One Rollout', 'Coevolve: Evolve a Child Environment', 'Coevolve: Start Run from This Config']) {
      await wb.fillPalette(`>${title}`);
      // The palette filters as the text is typed; give its list a moment to redraw (the count below is the check).
      await page.locator('.quick-input-widget', { hasText: /No matching|No commands/ }).waitFor({ timeout: 2_000 }).catch(() => undefined);
      const offered = await page.locator('.quick-input-list .monaco-list-row', { hasText: title.replace('Coevolve: ', '') }).count();
      assert.equal(offered, 0, `"${title}" is not offered in an untrusted window`);
      await wb.closeQuickInput();
    }
    // The palette does list the read-only commands, so the check above could see a command if it were there.
    await wb.fillPalette('>Coevolve: Open Run Dashboard');
    await wb.quickPickRow('Open Run Dashboard').waitFor();
    await wb.closeQuickInput();
    // An environment spec: the CodeLens offers trust, not Validate / Play / Evolve.
    await wb.openFile('log-triage.env.yaml');
    const lens = page.locator('.monaco-editor .codelens-decoration');
    await lens.first().waitFor({ timeout: 30_000 });
    const lenses = (await lens.allTextContents()).join(' | ');
    assert.match(lenses, /Trust this workspace to validate, play or run specs/);
    assert.doesNotMatch(lenses, /Play one rollout|Evolve a child|Validate/, `only the trust lens: ${lenses}`);
    const runToolbar = page.locator('.part.sidebar .pane-header[aria-label^="Runs"] .action-label[aria-label^="Start Run"]');
    assert.equal(await runToolbar.count(), 0, 'the Runs view has no Start Run button');
    assert.deepEqual(runsBefore(), before0, 'no run directory was made');
    await wb.screenshot('untrusted-palette');
  });
});
