// The harness shared by the vscode and e2e layers: find code-server (installed in tools/ by .ci/run) and Chromium,
// start code-server hermetically on a free loopback port, drive it with playwright-core, and stop it by process
// group. Recipes and pitfalls: ../shared/research/vscode-test-feasibility.md.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, cpSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const codeServerVersion = '4.100.3';

export interface HarnessTools {
  codeServer: string;
  chromium: string;
}

/** The code-server and Chromium binaries, or a sentence saying what is missing and how to get it. */
export function findHarnessTools(repoRoot: string): HarnessTools | { problem: string } {
  const codeServer = join(repoRoot, 'tools/node_modules/.bin/code-server');
  const chromiumPath = process.env.COEVOLVE_CHROMIUM ?? '/usr/bin/chromium';
  if (!existsSync(codeServer)) {
    return { problem: `code-server is not installed in tools/ (run .ci/run, or: cd tools && npm ci)` };
  }
  const pkg = join(repoRoot, 'tools/node_modules/code-server/package.json');
  const version = existsSync(pkg) ? (JSON.parse(readFileSync(pkg, 'utf8')) as { version?: string }).version : undefined;
  if (version !== codeServerVersion) {
    return { problem: `tools/ has code-server ${version ?? '?'}, the harness needs ${codeServerVersion} (cd tools && npm ci)` };
  }
  if (!existsSync(chromiumPath)) {
    return { problem: `Chromium not found at ${chromiumPath} (apt-get install chromium, or set COEVOLVE_CHROMIUM)` };
  }
  return { codeServer, chromium: chromiumPath };
}

export async function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Settings that keep the workbench quiet and offline: no welcome page, telemetry, updates, trust prompt or chat. */
export const hermeticSettings: Record<string, unknown> = {
  'workbench.startupEditor': 'none',
  'telemetry.telemetryLevel': 'off',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'update.mode': 'none',
  'workbench.enableExperiments': false,
  'security.workspace.trust.enabled': false,
  'chat.disableAIFeatures': true,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'workbench.tips.enabled': false,
};

export interface CodeServerOptions {
  codeServer: string;
  /** Defaults to a fresh folder: VS Code ignores extension folders added after its first scan of a directory. */
  extensionsDir?: string;
  /** Extra environment for the server; it reaches the extension host (the vscode suite reads its results path from it). */
  env?: Record<string, string>;
  settings?: Record<string, unknown>;
  /**
   * Workspace trust on, as a user's editor has it: the folder opens untrusted (restricted mode, no prompt). Off by
   * default so the other flows can run what they drive.
   */
  workspaceTrust?: boolean;
}

export interface CodeServer {
  host: string;
  url: string;
  runDir: string;
  userDataDir: string;
  extensionsDir: string;
  logFile: string;
  /** Kills the whole process group (the extension host outlives a disconnected browser otherwise). */
  stop(): Promise<void>;
}

/** Everything code-server writes goes under one temp dir: user data, extensions, its XDG config/data/cache. */
function hermeticEnv(runDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    XDG_CONFIG_HOME: join(runDir, 'xdg-config'),
    XDG_DATA_HOME: join(runDir, 'xdg-data'),
    XDG_CACHE_HOME: join(runDir, 'xdg-cache'),
    // An empty gallery keeps the server and the workbench from looking up the extension marketplace.
    EXTENSIONS_GALLERY: '{}',
    ...extra,
  };
}

function newRunDir(extensionsDir?: string): { runDir: string; userDataDir: string; extensionsDir: string } {
  const runDir = mkdtempSync(join(tmpdir(), 'coevolve-code-server-'));
  const userDataDir = join(runDir, 'user-data');
  mkdirSync(join(userDataDir, 'User'), { recursive: true });
  return { runDir, userDataDir, extensionsDir: extensionsDir ?? join(runDir, 'extensions') };
}

/** `code-server --install-extension` into the given dirs (works before or while the server runs). */
export function installExtension(codeServer: string, vsix: string, dirs: { userDataDir: string; extensionsDir: string; runDir: string }): void {
  const r = spawnSync(codeServer, ['--user-data-dir', dirs.userDataDir, '--extensions-dir', dirs.extensionsDir, '--install-extension', vsix], {
    env: hermeticEnv(dirs.runDir),
    encoding: 'utf8',
  });
  if (r.status !== 0) {
    throw new Error(`code-server could not install ${vsix} (exit ${r.status}):\n${r.stdout}${r.stderr}`);
  }
}

export async function startCodeServer(options: CodeServerOptions & { prepare?: (dirs: { runDir: string; userDataDir: string; extensionsDir: string }) => void }): Promise<CodeServer> {
  const dirs = newRunDir(options.extensionsDir);
  const trust = options.workspaceTrust ? { 'security.workspace.trust.enabled': true, 'security.workspace.trust.startupPrompt': 'never', 'security.workspace.trust.banner': 'always' } : {};
  writeFileSync(join(dirs.userDataDir, 'User/settings.json'), JSON.stringify({ ...hermeticSettings, ...trust, ...options.settings }, null, 2));
  options.prepare?.(dirs);
  const port = await freeLoopbackPort();
  const host = `127.0.0.1:${port}`;
  // An explicit --config keeps code-server from writing ~/.config/code-server/config.yaml.
  const configFile = join(dirs.runDir, 'config.yaml');
  writeFileSync(configFile, `bind-addr: ${host}\nauth: none\ncert: false\n`);
  const logFile = join(dirs.runDir, 'code-server.log');
  const logFd = openSync(logFile, 'a');
  const child = spawn(
    options.codeServer,
    [
      '--config', configFile, '--bind-addr', host, '--auth', 'none', '--disable-telemetry', '--disable-update-check',
      ...(options.workspaceTrust ? [] : ['--disable-workspace-trust']), '--disable-getting-started-override', '--user-data-dir', dirs.userDataDir,
      '--extensions-dir', dirs.extensionsDir,
    ],
    // detached = setsid: the server leads its own process group, so stop() can end the extension host and watchers too.
    { detached: true, stdio: ['ignore', logFd, logFd], env: hermeticEnv(dirs.runDir, options.env) },
  );
  closeSync(logFd);
  const killGroup = (): void => killProcessGroup(child);
  process.once('exit', killGroup);

  const url = `http://${host}`;
  try {
    await waitForHealth(url, child, logFile);
  } catch (err) {
    killGroup();
    throw err;
  }
  return {
    host,
    url,
    ...dirs,
    logFile,
    async stop() {
      process.removeListener('exit', killGroup);
      await stopProcessGroup(child);
      if (process.env.COEVOLVE_KEEP_CODE_SERVER_DIR !== '1') rmSync(dirs.runDir, { recursive: true, force: true });
    },
  };
}

async function waitForHealth(url: string, child: ChildProcess, logFile: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`code-server exited (${child.exitCode ?? child.signalCode}) before answering:\n${tail(logFile)}`);
    }
    try {
      const res = await fetch(`${url}/healthz`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`code-server did not answer ${url}/healthz within 60 s:\n${tail(logFile)}`);
}

export function tail(file: string, lines = 30): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

function killProcessGroup(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

async function stopProcessGroup(child: ChildProcess): Promise<void> {
  if (child.pid === undefined) return;
  killProcessGroup(child, 'SIGTERM');
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline && groupAlive(child.pid)) await new Promise((r) => setTimeout(r, 100));
  if (groupAlive(child.pid)) killProcessGroup(child, 'SIGKILL');
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A URI the server maps to a path on its own disk (the form `payload` and `folder` expect). */
export function remoteUri(server: CodeServer, absolutePath: string): string {
  return `vscode-remote://${server.host}${absolutePath}`;
}

/**
 * The workbench URL for a folder. With a payload of `extensionDevelopmentPath` + `extensionTestsPath` the workbench
 * runs the tests module in the Node extension host and reports the result through `window.codeAutomationExit`.
 */
export function workbenchUrl(server: CodeServer, folder: string, payload?: [string, string][]): string {
  const query = new URLSearchParams({ folder });
  if (payload) query.set('payload', JSON.stringify(payload));
  return `${server.url}/?${query.toString()}`;
}

export interface BrowserSession {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

/** Headless Chromium on a fresh profile; the flags keep it off the network except for the loopback server. */
export async function launchBrowser(chromiumPath: string, viewport = { width: 1400, height: 850 }): Promise<BrowserSession> {
  const profile = mkdtempSync(join(tmpdir(), 'coevolve-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    viewport,
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage',
    ],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    async close() {
      await context.close().catch(() => undefined);
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Console lines the web workbench prints on every load that say nothing about our extension. */
export function isWorkbenchNoise(text: string): boolean {
  return /vsda|Canceled|Failed to load resource|status of 404|\[Extension Host\] (Debugger|Debugging)|ENOTFOUND|gallery|Ignoring the error|X-Frame|webview-editor|ServiceWorker/i.test(text);
}

export interface LayerCounts {
  passed: number;
  failed: number;
  skipped: number;
  failures: { title: string; error: string }[];
  skips: string[];
}

export function emptyCounts(): LayerCounts {
  return { passed: 0, failed: 0, skipped: 0, failures: [], skips: [] };
}

/** The counts file scripts/test.mjs reads (COEVOLVE_COUNTS_FILE), printed as the layer's closing line too. */
export function reportCounts(layer: string, counts: LayerCounts): void {
  const file = process.env.COEVOLVE_COUNTS_FILE;
  if (file) writeFileSync(file, JSON.stringify(counts));
  console.log(`${layer}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
}

/**
 * A layer whose tools are missing skips with the reason on a developer machine; under COEVOLVE_REQUIRE_ALL=1 (CI)
 * it fails, because a green CI run must mean every real part ran. Returns the exit code for the runner.
 */
export function skipLayer(layer: string, reason: string): number {
  const counts = emptyCounts();
  if (process.env.COEVOLVE_REQUIRE_ALL === '1') {
    counts.failed = 1;
    counts.failures.push({ title: `${layer} layer`, error: `required (COEVOLVE_REQUIRE_ALL=1) but unavailable: ${reason}` });
    console.error(`${layer}: required but unavailable: ${reason}`);
    reportCounts(layer, counts);
    return 1;
  }
  counts.skipped = 1;
  counts.skips.push(`${layer} layer: ${reason}`);
  console.log(`${layer}: skipping, ${reason}`);
  reportCounts(layer, counts);
  return 0;
}

/** A temp copy of a fixture folder, so tests may write into the workspace they open. */
export function copyFixtureWorkspace(source: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'coevolve-ws-'));
  cpSync(source, dir, { recursive: true });
  return dir;
}
