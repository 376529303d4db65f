// The README's screenshots of the editor, from a real demo run: a fresh workspace, `coevolve run` of the demo on
// bwrap, the packaged .vsix in code-server, and the views clicked open in headless Chromium. Each screenshot is also
// checked for what a reader would be misled by: webview CSP violations (counted per frame) must be zero.
//   npm run package && node --import=tsx scripts/readmeScreenshots.ts [outDir=media/screenshots] [--run <finished demo run dir>]
// Look at every PNG it writes before committing them.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { Workbench } from '../test/e2e/support/workbench.js';
import { findHarnessTools, installExtension, launchBrowser, startCodeServer } from '../test/support/codeServer.js';

const root = join(__dirname, '..');

async function webviewFrame(page: Page, selector: string, timeoutMs = 60_000): Promise<Frame> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) if (await frame.locator(selector).count().catch(() => 0)) return frame;
    await page.waitForTimeout(250);
  }
  throw new Error(`no webview frame shows ${selector}`);
}

/** securitypolicyviolation events in a webview frame since it loaded (the webview's cspWatch counts them). */
async function violations(frame: Frame): Promise<unknown> {
  return frame.evaluate(() => (window as unknown as { __coevolveCspViolations?: unknown[] }).__coevolveCspViolations ?? null);
}

async function main(): Promise<void> {
  const out = join(root, process.argv[2] && !process.argv[2].startsWith('--') ? process.argv[2] : 'media/screenshots');
  const tools = findHarnessTools(root);
  if ('problem' in tools) throw new Error(tools.problem);
  const vsix = join(root, 'dist/coevolve.vsix');
  if (!existsSync(vsix)) throw new Error('dist/coevolve.vsix is missing: npm run package first');
  const ws = mkdtempSync(join(tmpdir(), 'coevolve-shots-'));
  cpSync(join(root, 'environments'), join(ws, 'environments'), { recursive: true });
  const t0 = Date.now();
  const given = process.argv.indexOf('--run');
  if (given > 0 && process.argv[given + 1]) {
    // A finished real demo run made earlier (on a loaded machine a fresh one can take many minutes): copied, never
    // changed in place.
    const src = process.argv[given + 1]!;
    cpSync(src, join(ws, 'runs', src.split('/').filter(Boolean).pop()!), { recursive: true });
    console.log(`using the real demo run ${src}`);
  } else {
    const run = spawnSync(process.execPath, [join(root, 'dist/cli.js'), 'run', join(ws, 'environments/demo.run.yaml'), '--out', join(ws, 'runs'), '--generations', '4', '--backend', 'bwrap'], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`the demo run failed:\n${run.stderr.slice(-2000)}`);
    console.log(`real demo run, 4 generations on bwrap: ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  }
  const server = await startCodeServer({ codeServer: tools.codeServer, prepare: (dirs) => installExtension(tools.codeServer, vsix, dirs) });
  const browser = await launchBrowser(tools.chromium, { width: 1400, height: 850 });
  mkdirSync(out, { recursive: true });
  const wb = new Workbench(browser.page, out);
  const page = browser.page;
  const row = (text: string | RegExp) => page.locator('.part.sidebar .monaco-list-row', { hasText: text });
  try {
    await wb.open(`${server.url}/?${new URLSearchParams({ folder: ws }).toString()}`);
    await wb.openViewContainer('Coevolve');
    await row(/^demo/).first().click();
    await row(/^Generation 3/).first().click();
    await page.mouse.move(900, 300);
    await row(/ × /).first().click();
    await row(/^rollout 0/).first().click();
    const viewer = await webviewFrame(page, '#steps');
    await viewer.locator('.step').first().waitFor();
    await page.waitForTimeout(1000);
    await wb.screenshot('rollout-viewer');
    await viewer.locator('vscode-tab-header[data-tab="reward"]').click();
    await viewer.locator('#verifier-output').waitFor();
    await page.waitForTimeout(500);
    await wb.screenshot('rollout-reward');
    console.log('rollout viewer CSP violations:', JSON.stringify(await violations(viewer)));

    await wb.runCommand('Coevolve: Open Run Dashboard');
    // With a rollout viewer focused the dashboard opens on its run; otherwise a picker asks which run.
    const pick = page.locator('.quick-input-list .monaco-list-row', { hasText: 'demo' }).first();
    if (await pick.waitFor({ timeout: 5_000 }).then(() => true, () => false)) await pick.click();
    const dash = await webviewFrame(page, '#charts');
    await dash.locator('#charts canvas').nth(5).waitFor();
    await page.waitForTimeout(1500);
    await wb.screenshot('dashboard-charts');
    await dash.locator('vscode-tab-header[data-tab="lineage"]').click();
    await dash.locator('#lineage-environment .lineage-node').first().waitFor();
    await page.waitForTimeout(500);
    await wb.screenshot('dashboard-lineage');
    await dash.locator('vscode-tab-header[data-tab="rollouts"]').click();
    await dash.locator('#rollouts .rollout-row[data-id]').first().waitFor();
    await page.waitForTimeout(500);
    await wb.screenshot('dashboard-rollouts');
    console.log('dashboard CSP violations:', JSON.stringify(await violations(dash)));
    console.log(`screenshots in ${out}`);
  } finally {
    await browser.close();
    await server.stop();
    rmSync(ws, { recursive: true, force: true });
  }
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
