import type { BrowserPage } from '../webview/browserLinks.js';

/** The pages of the browser host: the same webview bundles the editor loads, plus the runs list, the run table and the dataset. */
export const browserPages: Record<string, { page: BrowserPage; title: string; script: string; styles: string[]; element: string }> = {
  'index.html': { page: 'runs', title: 'Coevolve runs', script: 'runsPage.js', styles: ['runsPage.css'], element: 'coevolve-runs-page' },
  'run.html': { page: 'run', title: 'Coevolve run', script: 'runPage.js', styles: ['runPage.css'], element: 'coevolve-run-page' },
  'dashboard.html': { page: 'dashboard', title: 'Coevolve dashboard', script: 'dashboard.js', styles: ['codicon.css', 'dashboard.css'], element: 'coevolve-dashboard' },
  'dataset.html': { page: 'dataset', title: 'Coevolve dataset', script: 'datasetPage.js', styles: ['datasetPage.css'], element: 'coevolve-dataset-page' },
  'rollout.html': { page: 'rollout', title: 'Coevolve rollout', script: 'rolloutViewer.js', styles: ['codicon.css', 'rolloutViewer.css'], element: 'coevolve-rollout-viewer' },
};

/**
 * The CSP of every browser-host page: the webview's policy (nothing by default; scripts, styles, fonts and images
 * only from the bundle; no inline script or style, no eval) plus `connect-src 'self'` for the API and the event
 * stream, and no framing, no base URL, no form posts elsewhere. The server also sends it as a header.
 */
export const browserCsp = [
  "default-src 'none'", "script-src 'self'", "style-src 'self'", "font-src 'self'", "img-src 'self'", "connect-src 'self'",
  "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
].join('; ');

const escapeAttr = (s: string): string => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * A page's HTML. Module scripts run after the document is parsed wherever they stand, so they are in the head: the
 * browser asks for the stylesheets, the bundle and then the preloaded data in that order, and the server (one
 * request at a time) sends the bundle before it starts on the data. It carries no data: the app reads its target from the URL and asks the host for everything. A
 * server names the page's first request (`preload`, a GET URL of /api/rpc from firstRequest.ts) so the browser
 * fetches it alongside the bundle instead of after it has run. `chunks` are the modules the script imports
 * (chunkImports.ts), named as modulepreloads so they are fetched with the script, not after it has been parsed.
 */
export function browserPageHtml(file: string, host: 'http' | 'static', commands: string[] = [], preload?: string, chunks: string[] = []): string {
  const p = browserPages[file];
  if (!p) throw new Error(`no browser page ${file}`);
  // The frame-ancestors directive only works as a header; a meta CSP ignores it, so it is left out here.
  const metaCsp = browserCsp.split('; ').filter((d) => !d.startsWith('frame-ancestors')).join('; ');
  const styles = ['theme.css', ...p.styles].map((s) => `<link rel="stylesheet" href="assets/${escapeAttr(s)}"${s === 'codicon.css' ? ' id="vscode-codicon-stylesheet"' : ''}>`).join('\n    ');
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <meta http-equiv="Content-Security-Policy" content="${metaCsp}">
    <meta name="viewport" content="width=device-width, initial-scale=1.0">
    <meta name="referrer" content="no-referrer">
    <meta name="coevolve-host" content="${host}">
    <meta name="coevolve-page" content="${p.page}">
    <meta name="coevolve-commands" content="${escapeAttr(commands.join(' '))}">
    <link rel="icon" type="image/svg+xml" href="assets/coevolve.svg">
    ${styles}
    <script type="module" src="assets/hostNav.js"></script>
    <script type="module" src="assets/${escapeAttr(p.script)}"></script>
    ${chunks.map((c) => `<link rel="modulepreload" href="assets/${escapeAttr(c)}">\n    `).join('')}    ${preload ? `<link rel="preload" as="fetch" crossorigin="anonymous" href="${escapeAttr(preload)}" data-coevolve-request>\n    ` : ''}<title>${escapeAttr(p.title)}</title>
  </head>
  <body>
    <nav class="host-nav" aria-label="Coevolve"></nav>
    <${p.element} id="app"></${p.element}>
  </body>
</html>`;
}
