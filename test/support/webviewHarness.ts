// A webview app outside VS Code: a loopback HTTP server serves dist/webview and a page built by the same
// webviewHtml() the extension uses (same CSP, same nonce rule), with a stand-in for acquireVsCodeApi that forwards
// requests to `answer`. It measures the app itself in Chromium, without the workbench around it.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { makeNonce, webviewHtml } from '../../src/extension/viewer/webviewHtml.js';
import { staticChunkImports } from '../../src/webview/chunkImports.js';

const types: Record<string, string> = { '.js': 'text/javascript', '.css': 'text/css', '.ttf': 'font/ttf', '.html': 'text/html' };

export interface Harness {
  url: string;
  close(): Promise<void>;
}

export async function startHarness(root: string, app: string, element: string, state: unknown, answer: (method: string, params: unknown) => unknown, bodyClass = 'vscode-dark'): Promise<Harness> {
  const dist = join(root, 'dist/webview');
  let origin = '';
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', origin);
    if (url.pathname === '/') {
      const nonce = makeNonce();
      // The app's chunks as the extension names them (webviewHost.ts renderApp), read from the build as it is now.
      const preloadUris = staticChunkImports(readFileSync(join(dist, `${app}.js`), 'utf8')).map((c) => `${origin}/${c}`);
      let html = webviewHtml({ title: app, cspSource: origin, scriptUri: `${origin}/${app}.js`, styleUris: [`${origin}/codicon.css`, `${origin}/${app}.css`], element, state, nonce, preloadUris });
      // The stand-in VS Code API: requests go to /rpc and come back as window messages, like postMessage replies.
      const stub = `<script nonce="${nonce}">
        window.acquireVsCodeApi = () => ({
          getState: () => undefined, setState: () => {},
          postMessage: (m) => { if (m.kind !== 'request') return;
            fetch('/rpc', { method: 'POST', body: JSON.stringify(m) }).then((r) => r.json()).then((data) => window.dispatchEvent(new MessageEvent('message', { data }))); },
        });
      </script>`;
      html = html.replace('<body>', `<body class="${bodyClass}">${stub}`).replace("default-src 'none'", `default-src 'none'; connect-src ${origin}`);
      res.writeHead(200, { 'content-type': 'text/html' }).end(html);
      return;
    }
    if (url.pathname === '/rpc') {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const m = JSON.parse(body) as { id: number; method: string; params: unknown };
        Promise.resolve()
          .then(() => answer(m.method, m.params))
          .then(
            (result) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'response', id: m.id, ok: true, result })),
            (err: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'response', id: m.id, ok: false, error: err instanceof Error ? err.message : String(err) })),
          );
      });
      return;
    }
    const file = normalize(join(dist, url.pathname));
    if (!file.startsWith(dist)) return void res.writeHead(403).end();
    let data: Buffer;
    try {
      data = readFileSync(file);
    } catch {
      return void res.writeHead(404).end();
    }
    res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' }).end(data);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return { url: `${origin}/`, close: () => new Promise((r) => server.close(() => r())) };
}
