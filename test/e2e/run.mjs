// The e2e layer: package the .vsix, install it into a fresh code-server 4.100.3 (from tools/), then run the flows in
// test/e2e/flows/*.test.ts with mocha; each flow drives the workbench in headless Chromium through the page object
// in support/workbench.ts and saves screenshots to artifacts/screenshots/. Run through scripts/test.mjs, or:
//   node --import=tsx test/e2e/run.mjs          (COEVOLVE_E2E_SKIP_PACKAGE=1 reuses dist/coevolve.vsix)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  copyFixtureWorkspace, emptyCounts, findHarnessTools, installExtension, reportCounts, skipLayer, startCodeServer,
} from '../support/codeServer.ts';

const layer = 'e2e';
const root = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
const vsix = join(root, 'dist/coevolve.vsix');

function packageExtension() {
  if (process.env.COEVOLVE_E2E_SKIP_PACKAGE === '1' && existsSync(vsix)) return;
  rmSync(vsix, { force: true });
  // vsce prints the whole file tree; keep it for when packaging fails.
  const r = spawnSync('npm', ['run', 'package'], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0 || !existsSync(vsix)) throw new Error(`npm run package failed (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
  const summary = r.stdout.split('\n').find((l) => l.includes('Packaged:'));
  console.log(summary ? summary.trim() : `packaged ${vsix}`);
}

function runFlows(env) {
  const r = spawnSync(process.execPath, [
    join(root, 'node_modules/mocha/bin/mocha.js'), '--import=tsx',
    // On a failure, save what the open workbenches showed (screenshot and side bar text) for reading afterwards.
    '--require', join(root, 'test/e2e/support/failureCapture.ts'), '--reporter', join(root, 'test/support/countingReporter.cjs'),
    // COEVOLVE_E2E_FLOWS=file.test.ts[,...] runs only those flows (when working on one).
    '--timeout', '120000', '--recursive', '--extension', 'ts',
    ...(process.env.COEVOLVE_E2E_FLOWS ? process.env.COEVOLVE_E2E_FLOWS.split(',').map((f) => join(root, 'test/e2e/flows', f)) : [join(root, 'test/e2e/flows')]),
  ], { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  return r.status ?? 1;
}

async function main() {
  const tools = findHarnessTools(root);
  if ('problem' in tools) return skipLayer(layer, tools.problem);
  packageExtension();
  const workspace = copyFixtureWorkspace(join(root, 'test/fixtures/workspace'));
  // Installed before the server starts, into its fresh extensions dir, the way a user installs a .vsix.
  const server = await startCodeServer({
    codeServer: tools.codeServer,
    prepare: (dirs) => installExtension(tools.codeServer, vsix, dirs),
  });
  const countsDir = mkdtempSync(join(tmpdir(), 'coevolve-e2e-counts-'));
  const countsFile = join(countsDir, 'counts.json');
  let code;
  try {
    code = runFlows({
      COEVOLVE_COUNTS_FILE: countsFile,
      COEVOLVE_E2E_URL: server.url,
      COEVOLVE_E2E_WORKSPACE: workspace,
      // The flows read the extension's log (what Output shows) from the server's own log folder.
      COEVOLVE_E2E_USER_DATA: server.userDataDir,
      COEVOLVE_CHROMIUM: tools.chromium,
      COEVOLVE_E2E_SCREENSHOTS: join(root, 'artifacts/screenshots'),
      // The untrusted-window flow starts its own server with workspace trust on, from the same tools and .vsix.
      COEVOLVE_E2E_CODE_SERVER: tools.codeServer,
      COEVOLVE_E2E_VSIX: vsix,
    });
  } finally {
    await server.stop().catch(() => undefined);
    rmSync(workspace, { recursive: true, force: true });
  }
  const counts = existsSync(countsFile) ? JSON.parse(readFileSync(countsFile, 'utf8')) : undefined;
  rmSync(countsDir, { recursive: true, force: true });
  if (!counts) {
    // mocha died before its reporter wrote anything: report that as one failure rather than no result.
    const failed = emptyCounts();
    failed.failed = 1;
    failed.failures.push({ title: 'e2e layer', error: `mocha exited ${code} without counts` });
    reportCounts(layer, failed);
    return 1;
  }
  reportCounts(layer, counts);
  return code === 0 && counts.failed === 0 ? 0 : 1;
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
