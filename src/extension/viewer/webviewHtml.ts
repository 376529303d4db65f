import { randomBytes } from 'node:crypto';

export interface WebviewPage {
  title: string;
  /** The webview's cspSource: the only origin styles, fonts and scripts may come from. */
  cspSource: string;
  scriptUri: string;
  styleUris: string[];
  /** The custom element the app defines; it is the only markup the page has. */
  element: string;
  /** Initial state for the app (the panel's target), JSON in a data attribute. */
  state: unknown;
  nonce?: string;
  /** Modules the script imports (its chunks, src/webview/chunkImports.ts), fetched with it. */
  preloadUris?: string[];
}

export function makeNonce(): string {
  return randomBytes(18).toString('base64').replace(/[^A-Za-z0-9]/g, '');
}

const escapeAttr = (s: string): string => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * The HTML shell of a webview: a strict CSP (nothing by default; scripts only with this page's nonce; styles and
 * fonts only from the bundle), the stylesheets, one custom element and the app's module script. Model-written text
 * never goes through here: the app renders it as text.
 */
export function webviewHtml(page: WebviewPage): string {
  const nonce = page.nonce ?? makeNonce();
  const csp = [
    "default-src 'none'",
    `style-src ${page.cspSource}`,
    `font-src ${page.cspSource}`,
    `img-src ${page.cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  const styles = page.styleUris.map((u) => `<link rel="stylesheet" href="${escapeAttr(u)}"${u.includes('codicon') ? ' id="vscode-codicon-stylesheet"' : ''}>`).join('\n    ');
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <meta http-equiv="Content-Security-Policy" content="${csp}">
    <meta name="viewport" content="width=device-width, initial-scale=1.0">
    ${styles}
    <title>${escapeAttr(page.title)}</title>
  </head>
  <body>
    <${page.element} id="app" data-state="${escapeAttr(JSON.stringify(page.state))}"></${page.element}>
    ${(page.preloadUris ?? []).map((u) => `<link rel="modulepreload" nonce="${nonce}" href="${escapeAttr(u)}">\n    `).join('')}<script type="module" nonce="${nonce}" src="${escapeAttr(page.scriptUri)}"></script>
  </body>
</html>`;
}
