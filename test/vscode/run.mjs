// The vscode layer: a mocha suite that runs inside a real VS Code extension host (code-server 4.100.3, driven by
// headless Chromium through the workbench's `payload` URL parameter). Run through scripts/test.mjs, or directly:
//   node --import=tsx test/vscode/run.mjs            COEVOLVE_VSCODE_GREP=<pattern> runs a subset
// Suites live in test/vscode/suite/**/*.test.ts; each is bundled on its own to out/test-vscode/ and loaded by
// suite/index.ts, which writes the counts to the file named in COEVOLVE_VSCODE_RESULTS.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import {
  copyFixtureWorkspace, emptyCounts, findHarnessTools, isWorkbenchNoise, launchBrowser, remoteUri, reportCounts,
  skipLayer, startCodeServer, tail, workbenchUrl,
} from '../support/codeServer.ts';

// Must match suiteLineMarker in suite/index.ts (that file is bundled for the extension host, not imported here).
const suiteLineMarker = '[coevolve-suite] ';

const layer = 'vscode';
const root = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
const suiteDir = join(root, 'test/vscode/suite');
const outDir = join(root, 'out/test-vscode');
const artifacts = join(root, 'artifacts/vscode');
const timeoutMs = Number(process.env.COEVOLVE_VSCODE_TIMEOUT_MS ?? 180_000);

function findSuiteFiles(dir) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath ?? e.path, e.name));
}

async function buildAll() {
  const build = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) throw new Error(`npm run build failed (exit ${build.status})`);
  rmSync(outDir, { recursive: true, force: true });
  // One bundle per test file: mocha requires each after it has set up describe/it, and `vscode` comes from the host.
  await esbuild.build({
    entryPoints: findSuiteFiles(suiteDir),
    outbase: suiteDir,
    outdir: outDir,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    sourcemap: 'inline',
    external: ['vscode', 'mocha'],
    logLevel: 'warning',
  });
}

/** The fixture workspace plus the example environments, which must validate clean in the editor too. */
function prepareWorkspace() {
  const ws = copyFixtureWorkspace(join(root, 'test/fixtures/workspace'));
  const examples = join(root, 'environments');
  if (existsSync(examples)) {
    mkdirSync(join(ws, 'examples'));
    for (const f of readdirSync(examples).filter((n) => n.endsWith('.env.yaml'))) cpSync(join(examples, f), join(ws, 'examples', f));
  }
  return ws;
}

async function main() {
  const tools = findHarnessTools(root);
  if ('problem' in tools) return skipLayer(layer, tools.problem);
  await buildAll();
  const workspace = prepareWorkspace();
  const resultsDir = mkdtempSync(join(tmpdir(), 'coevolve-vscode-results-'));
  const resultsFile = join(resultsDir, 'results.json');
  const server = await startCodeServer({
    codeServer: tools.codeServer,
    env: { COEVOLVE_VSCODE_RESULTS: resultsFile, COEVOLVE_VSCODE_GREP: process.env.COEVOLVE_VSCODE_GREP ?? '' },
  });
  const browser = await launchBrowser(tools.chromium);
  let exitCode;
  const consoleLines = [];
  // The deadline is on silence, not on the whole suite: on a loaded machine a correct suite takes many minutes,
  // and a stuck one stops printing spec lines.
  let lastSuiteLine = Date.now();
  try {
    const { page } = browser;
    // Exposed before navigation: the workbench calls it once the tests module's run() settles.
    const exited = new Promise((resolve) => void page.exposeFunction('codeAutomationExit', (code) => resolve(code)));
    // Spec lines (marked by suite/index.ts) go to the terminal; everything else to a log kept for failures.
    page.on('console', (m) => {
      const text = m.text();
      const at = text.indexOf(suiteLineMarker);
      if (at >= 0) {
        lastSuiteLine = Date.now();
        console.log(text.slice(at + suiteLineMarker.length));
      }
      else if (!isWorkbenchNoise(text)) consoleLines.push(`[${m.type()}] ${text}`);
    });
    page.on('pageerror', (err) => consoleLines.push(`[pageerror] ${err.message}`));
    const payload = [
      ['extensionDevelopmentPath', remoteUri(server, root)],
      ['extensionTestsPath', remoteUri(server, join(outDir, 'index.js'))],
    ];
    // Only the navigation is awaited: the result comes through codeAutomationExit, and on a loaded machine the
    // workbench's own 'load' event can take longer than a navigation timeout.
    await page.goto(workbenchUrl(server, workspace, payload), { waitUntil: 'commit', timeout: 120_000 });
    const stalled = new Promise((r) => {
      const timer = setInterval(() => {
        if (Date.now() - lastSuiteLine > timeoutMs) r('timeout');
      }, 1_000);
      void exited.then(() => clearInterval(timer));
    });
    exitCode = await Promise.race([exited, stalled]);
    if (exitCode !== 0) {
      mkdirSync(artifacts, { recursive: true });
      await page.screenshot({ path: join(artifacts, 'vscode-layer-failure.png') }).catch(() => undefined);
      writeFileSync(join(artifacts, 'vscode-layer-console.log'), consoleLines.join('\n'));
      writeFileSync(join(artifacts, 'vscode-layer-code-server.log'), tail(server.logFile, 500));
      console.log(`  workbench console (last 30 lines; all in artifacts/vscode/):\n${consoleLines.slice(-30).join('\n')}`);
    }
  } finally {
    await browser.close();
    await server.stop().catch(() => undefined);
  }
  const counts = existsSync(resultsFile) ? JSON.parse(readFileSync(resultsFile, 'utf8')) : emptyCounts();
  rmSync(resultsDir, { recursive: true, force: true });
  rmSync(workspace, { recursive: true, force: true });
  if (exitCode === 'timeout') {
    counts.failed++;
    counts.failures.push({ title: 'vscode layer', error: `the extension host printed no spec line for ${timeoutMs / 1000} s` });
  } else if (exitCode !== 0 && counts.failed === 0) {
    counts.failed++;
    counts.failures.push({ title: 'vscode layer', error: `extension host exited ${exitCode} without a failing test (see the log above)` });
  }
  for (const f of counts.failures) console.log(`  FAILED ${f.title}: ${f.error}`);
  reportCounts(layer, counts);
  return counts.failed > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`${layer}: ${err instanceof Error ? err.message : String(err)}`);
    const counts = emptyCounts();
    counts.failed = 1;
    counts.failures.push({ title: `${layer} layer`, error: String(err instanceof Error ? err.message : err) });
    reportCounts(layer, counts);
    process.exit(1);
  },
);
