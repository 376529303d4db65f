import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { getCookie, setCookie } from 'hono/cookie';
import { streamSSE } from 'hono/streaming';
import { ViewData } from '../viewdata/viewRequests.js';
import type { HostMessage, RequestMethod } from '../webview/protocol.js';
import { parseWebviewMessage } from '../webview/protocolSchemas.js';
import { loadAssets, scriptChunks, webviewAssetsDir } from './assets.js';
import { browserCsp, browserPageHtml, browserPages } from './browserPages.js';
import { firstRequestOf, preloadMethods, requestUrl, runsPageChunk } from '../webview/firstRequest.js';
import { LiveFeed } from './liveFeed.js';
import { hostAllowed, isLoopbackHost, makeToken, originAllowed, sameSecret } from './requestGuard.js';
import { loginPageHtml } from './loginPage.js';
import { ServedRuns } from './servedRuns.js';
import { warmDashboardCode } from './warmUp.js';

export interface ViewServerOptions {
  sources: string[];
  host?: string;
  port?: number;
  allowCuration?: boolean;
  /** Host names (besides loopback names and IP literals) a browser may use to reach the server. */
  allowHosts?: string[];
  /** Required when `host` is not loopback; made here when not given. */
  token?: string;
  assetsDir?: string;
  tailMs?: number;
  /** Where transcript indexes are kept (ViewData's transcriptCache); the user's cache folder when not given. */
  transcriptCache?: string | null;
}

export interface ViewServer {
  url: string;
  port: number;
  /** The access token, when the server is bound off loopback (shown once by the CLI). */
  token?: string;
  close(): Promise<void>;
}

const sessionCookie = 'coevolve_view_session';
const writeMethods = new Set<RequestMethod>(['curation/apply']);

/**
 * `coevolve view`: the editor's webview bundles served to any browser, over the same data layer. Read-only (the
 * one write, curation, only with allowCuration). Every request passes, in order: the Host check (no DNS
 * rebinding), the Origin / Sec-Fetch check (no cross-site reads or writes), and off loopback the token (a bearer
 * header, or the session cookie the login form sets; never in a URL).
 */
export async function startViewServer(o: ViewServerOptions): Promise<ViewServer> {
  const host = o.host ?? '127.0.0.1';
  const loopback = isLoopbackHost(host);
  const token = loopback ? undefined : (o.token ?? makeToken());
  const runs = new ServedRuns(o.sources);
  // The listing scan (every run directory's manifest; ~0.3 s for a thousand runs) once, before the first page asks:
  // every page needs it (the runs list, and any run key a URL names), and it is kept while no run comes or goes.
  runs.listed();
  const data = new ViewData(runs, { transcriptCache: o.transcriptCache });
  // And the runs list's first window (its newest runs' facts: a few small reads each, ~0.2 s for 50 runs under load),
  // the request every visit starts with: read once here, it is answered from the cache until those runs change.
  try {
    data.handlers['runs/page']({ offset: 0, limit: runsPageChunk });
  } catch {
    // a run that cannot be read now is reported to the page that asks, as before
  }
  warmDashboardCode(runs);
  const feed = new LiveFeed(runs);
  const assets = loadAssets(o.assetsDir ?? webviewAssetsDir());
  const sessions = new Set<string>();
  const commands = o.allowCuration ? ['curation/apply'] : [];
  let port = o.port ?? 0;

  const app = new Hono();
  app.use('*', async (c, next) => {
    c.header('Content-Security-Policy', browserCsp);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('X-Frame-Options', 'DENY');
    c.header('Cross-Origin-Opener-Policy', 'same-origin');
    c.header('Cross-Origin-Resource-Policy', 'same-origin');
    const hostHeader = c.req.header('host') ?? '';
    if (!hostAllowed(hostHeader, port, o.allowHosts ?? [])) return c.text(`Host "${hostHeader.slice(0, 100)}" is not this server's; reach it as localhost or by IP, or start it with --allow-host NAME`, 421);
    const path = new URL(c.req.url).pathname;
    const isPage = path === '/' || path === '/login' || Object.hasOwn(browserPages, path.slice(1));
    if (!originAllowed({ method: c.req.method, host: hostHeader, origin: c.req.header('origin'), fetchSite: c.req.header('sec-fetch-site'), fetchMode: c.req.header('sec-fetch-mode'), isPage })) {
      return c.text('cross-origin request refused', 403);
    }
    if (token && path !== '/login' && path !== '/assets/theme.css' && !authorized(c)) {
      if (c.req.method === 'GET' && isPage) return c.redirect('/login', 303);
      return c.text('this coevolve view needs its access token (log in at /login, or send Authorization: Bearer <token>)', 401);
    }
    await next();
  });

  const authorized = (c: Context): boolean => {
    const auth = c.req.header('authorization');
    if (auth?.startsWith('Bearer ') && token && sameSecret(auth.slice(7), token)) return true;
    const session = getCookie(c, sessionCookie);
    return session !== undefined && sessions.has(session);
  };

  app.get('/login', (c) => c.html(loginPageHtml(false)));
  app.post('/login', bodyLimit({ maxSize: 4096 }), async (c) => {
    const form = await c.req.parseBody();
    const given = typeof form['token'] === 'string' ? form['token'] : undefined;
    if (!token || !sameSecret(given?.trim(), token)) return c.html(loginPageHtml(true), 401);
    const session = makeToken();
    sessions.add(session);
    setCookie(c, sessionCookie, session, { httpOnly: true, sameSite: 'Strict', path: '/' });
    return c.redirect('/index.html', 303);
  });

  // Each page names its first request for the browser to preload (firstRequest.ts); the HTML holds no data.
  const pageHtml = (file: string, search: string): string => {
    const p = browserPages[file];
    const first = p ? firstRequestOf(p.page, search) : undefined;
    return browserPageHtml(file, 'http', commands, first ? requestUrl(first.method, first.params) : undefined, p ? scriptChunks(assets, p.script) : []);
  };
  app.get('/', (c) => c.html(pageHtml('index.html', new URL(c.req.url).search)));
  app.get('/:page{[a-z]+\\.html}', (c) => {
    const page = c.req.param('page');
    if (!Object.hasOwn(browserPages, page)) return c.notFound();
    return c.html(pageHtml(page, new URL(c.req.url).search));
  });
  app.get('/assets/:name', (c) => {
    const asset = assets.get(c.req.param('name'));
    if (!asset) return c.notFound();
    return c.body(new Uint8Array(asset.body), 200, { 'Content-Type': asset.type, 'Cache-Control': 'no-cache' });
  });

  app.post('/api/rpc', bodyLimit({ maxSize: 64 * 1024 }), async (c) => {
    if (!(c.req.header('content-type') ?? '').startsWith('application/json')) return c.text('send JSON (Content-Type: application/json)', 415);
    let raw: unknown;
    try {
      raw = await c.req.json();
    } catch {
      return c.json({ kind: 'response', id: 0, ok: false, error: 'not JSON' }, 400);
    }
    const reply = await answer(raw);
    c.header('Cache-Control', 'no-store');
    return reply ? c.json(reply, reply.kind === 'response' && !reply.ok ? 400 : 200) : c.body(null, 204);
  });

  // A page's preloaded first request: the same envelope as a POST, for the read methods a page preloads only.
  app.get('/api/rpc', async (c) => {
    const method = c.req.query('method') ?? '';
    const params = c.req.query('params') ?? '';
    if (!(preloadMethods as readonly string[]).includes(method) || params.length > 4096) return c.json({ kind: 'response', id: 0, ok: false, error: 'GET answers only the read requests a page preloads; POST the others' }, 405);
    let parsed: unknown;
    try {
      parsed = JSON.parse(params);
    } catch {
      return c.json({ kind: 'response', id: 0, ok: false, error: 'params are not JSON' }, 400);
    }
    // The page asked for its bundle just before this: those requests are answered first (they take no time).
    await new Promise<void>((r) => setImmediate(r));
    const reply = await answer({ kind: 'request', id: 0, method, params: parsed });
    c.header('Cache-Control', 'no-store');
    return c.json(reply ?? { kind: 'response', id: 0, ok: false, error: 'not a request' }, reply?.kind === 'response' && !reply.ok ? 400 : 200);
  });

  const answer = async (raw: unknown): Promise<HostMessage | undefined> => {
    const parsed = parseWebviewMessage(raw);
    if (!parsed.ok) return { kind: 'response', id: parsed.id ?? 0, ok: false, error: parsed.error };
    const m = parsed.message;
    if (m.kind !== 'request') return undefined; // commands act on an editor; this server runs nothing
    if (writeMethods.has(m.method) && !o.allowCuration) return { kind: 'response', id: m.id, ok: false, error: `${m.method} is refused: coevolve view is read-only (start it with --allow-curation to curate)` };
    try {
      const handler = data.handlers[m.method] as (p: unknown) => unknown;
      return { kind: 'response', id: m.id, ok: true, result: await handler(m.params) };
    } catch (err) {
      return { kind: 'response', id: m.id, ok: false, error: err instanceof Error ? err.message : String(err) };
    }
  };

  app.get('/api/events', (c) => {
    c.header('Cache-Control', 'no-store');
    return streamSSE(c, async (stream) => {
      let closed = false;
      let wake: (() => void) | undefined;
      const queue = feed.since(c.req.header('last-event-id'));
      const off = feed.subscribe((item) => {
        queue.push(item);
        wake?.();
      });
      stream.onAbort(() => {
        closed = true;
        off();
        wake?.();
      });
      await stream.write('retry: 1000\n\n');
      while (!closed) {
        if (queue.length === 0) {
          await new Promise<void>((r) => {
            wake = r;
            setTimeout(r, 15_000);
          });
          wake = undefined;
          if (queue.length === 0 && !closed) await stream.write(': keep-alive\n\n');
          continue;
        }
        for (const item of queue.splice(0)) await stream.writeSSE({ id: item.id, data: JSON.stringify(item.message) });
      }
    });
  });

  const server = await new Promise<Server>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port, hostname: host }, () => resolve(s as Server)) as Server;
    s.once('error', reject);
  });
  port = (server.address() as AddressInfo).port;
  feed.start(o.tailMs);
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown === '0.0.0.0' || shown === '[::]' ? '127.0.0.1' : shown}:${port}/`,
    port,
    ...(token ? { token } : {}),
    close: () => new Promise<void>((resolve) => {
      feed.stop();
      server.closeAllConnections?.();
      server.close(() => resolve());
    }),
  };
}
