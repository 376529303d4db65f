// Builds the three bundles: extension host (cjs, vscode external), CLI (cjs, node) and the webviews (browser).
// Type checking is separate (`npm run typecheck`) so builds stay fast.
import * as esbuild from 'esbuild';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, existsSync, rmSync } from 'node:fs';
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
// One build per app. The dashboard is split: what it imports with import() (the tabs after the first, which its
// first screen does not show) becomes a chunk loaded when needed, and what that shares with the app a chunk the app
// imports (relative URLs beside the app's script: the editor's webview nonce and the browser host's 'self' both
// cover them). The other apps are single files (a chunk is one more round trip before their first screen).
const splitApps = new Set(['dashboard.ts']);
// In --watch mode every rebuild of a split app writes its chunks under new hashes; the ones no split app's latest build
// wrote are removed after each build (else they were served and packaged beside the new ones until a plain build).
const chunksOf = new Map();
const pruneChunks = (app) => ({
  name: 'prune-chunks',
  setup(build) {
    build.onEnd((result) => {
      if (!result.metafile) return;
      chunksOf.set(app, new Set(Object.keys(result.metafile.outputs).map((p) => p.split('/').pop())));
      const kept = new Set([...chunksOf.values()].flatMap((s) => [...s]));
      for (const f of readdirSync('dist/webview')) if (f.startsWith('chunk-') && !kept.has(f)) rmSync(join('dist/webview', f));
    });
  },
});
for (const entry of webviewEntries) {
  const app = entry.split('/').pop();
  const split = splitApps.has(app);
  builds.push({ ...common, external: [], entryPoints: [entry], outdir: 'dist/webview', platform: 'browser', format: 'esm', target: 'es2022', ...(split ? { splitting: true, chunkNames: 'chunk-[name]-[hash]', metafile: true, plugins: [pruneChunks(app)] } : {}) });
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
  // The browser pages' icon (the extension's own), so a browser does not ask for /favicon.ico and log a 404.
  cpSync('media/coevolve.svg', 'dist/webview/coevolve.svg');
  // The command channel's supervisor and its per-command init ship as source; each machine compiles them with its
  // own gcc (channel/binary.ts).
  mkdirSync('dist/channel', { recursive: true });
  for (const f of ['supervisor.c', 'reaper.c']) cpSync(join('src/sandbox/channel', f), join('dist/channel', f));
}

// Chunks of earlier builds (their names carry a content hash) would be served, bundled and packaged beside the new ones.
for (const f of existsSync('dist/webview') ? readdirSync('dist/webview') : []) if (f.startsWith('chunk-')) rmSync(join('dist/webview', f));

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
