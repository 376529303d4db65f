// Builds the three bundles: extension host (cjs, vscode external), CLI (cjs, node) and the webviews (browser).
// Type checking is separate (`npm run typecheck`) so builds stay fast.
import * as esbuild from 'esbuild';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';

const version = JSON.parse(readFileSync('package.json', 'utf8')).version;

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

const common = {
  bundle: true,
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
  // ssh2 (under dockerode) probes optional native helpers inside try/catch; leave them to runtime resolution.
  external: ['cpu-features', '*.node'],
  define: { __COEVOLVE_VERSION__: JSON.stringify(version) },
};

const webviewDir = 'src/webview/apps';
const webviewEntries = existsSync(webviewDir)
  ? readdirSync(webviewDir).filter((f) => f.endsWith('.ts')).map((f) => join(webviewDir, f))
  : [];

const builds = [
  { ...common, entryPoints: ['src/extension/extension.ts'], outfile: 'dist/extension.js', platform: 'node', format: 'cjs', target: 'node20', external: [...common.external, 'vscode'] },
  { ...common, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js', platform: 'node', format: 'cjs', target: 'node20' },
];
if (webviewEntries.length > 0) {
  builds.push({ ...common, external: [], entryPoints: webviewEntries, outdir: 'dist/webview', platform: 'browser', format: 'esm', target: 'es2022' });
}
// The browser host's own pages (coevolve view and bundles): runs list, run table, navigation. Same output folder.
const browserDir = 'src/webview/browser';
const browserEntries = existsSync(browserDir) ? readdirSync(browserDir).filter((f) => f.endsWith('.ts')).map((f) => join(browserDir, f)) : [];
if (browserEntries.length > 0) {
  builds.push({ ...common, external: [], entryPoints: browserEntries, outdir: 'dist/webview', platform: 'browser', format: 'esm', target: 'es2022' });
}

function copyAssets() {
  mkdirSync('dist/webview', { recursive: true });
  const codicons = 'node_modules/@vscode/codicons/dist';
  for (const f of ['codicon.css', 'codicon.ttf']) cpSync(join(codicons, f), join('dist/webview', f));
  cpSync('src/webview/browser/theme.css', 'dist/webview/theme.css');
  // The command channel's supervisor ships as source; each machine compiles it with its own gcc (channel/binary.ts).
  mkdirSync('dist/channel', { recursive: true });
  cpSync('src/sandbox/channel/supervisor.c', 'dist/channel/supervisor.c');
}

if (watch) {
  const contexts = await Promise.all(builds.map((b) => esbuild.context(b)));
  copyAssets();
  await Promise.all(contexts.map((c) => c.watch()));
  console.log('[watch] build finished, watching for changes...');
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
  copyAssets();
  writeSchemas();
}

// environments/schemas/*.json are generated from the zod source by the CLI just built (a unit test fails when stale).
function writeSchemas() {
  const r = spawnSync(process.execPath, ['dist/cli.js', 'schema', '--out', 'environments/schemas'], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) throw new Error(`writing the JSON Schemas failed (exit ${r.status})`);
}
