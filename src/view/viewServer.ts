import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { ViewData } from '../viewdata/viewRequests.js';
import { runsPageChunk } from '../webview/firstRequest.js';
import { loadAssets, webviewAssetsDir } from './assets.js';
import { addEventStream } from './eventStream.js';
import { LiveFeed } from './liveFeed.js';
import { addLoginRoutes, tokenAuthorizer } from './loginRoutes.js';
import { addPageRoutes } from './pageRoutes.js';
import { isLoopbackHost, makeToken } from './requestGuard.js';
import { addRpcRoutes, requestAnswerer } from './rpcRoutes.js';
import { guardEveryRequest } from './securityGate.js';
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
  const data = warmedViewData(runs, o.transcriptCache);
  const feed = new LiveFeed(runs);
  const assets = loadAssets(o.assetsDir ?? webviewAssetsDir());
  const sessions = new Set<string>();
  const commands = o.allowCuration ? ['curation/apply'] : [];
  let port = o.port ?? 0;

  const app = new Hono();
  guardEveryRequest(app, { port: () => port, allowHosts: () => o.allowHosts ?? [], token, authorized: tokenAuthorizer(token, sessions) });
  addLoginRoutes(app, token, sessions);
  addPageRoutes(app, assets, commands);
  addRpcRoutes(app, requestAnswerer(data, o));
  addEventStream(app, feed);

  const server = await listen(app, port, host);
  port = (server.address() as AddressInfo).port;
  feed.start(o.tailMs);
  return servedAt(server, host, port, token, feed);
}

/** The data layer over the served runs, with the reads every first visit needs done before the first page asks. */
function warmedViewData(runs: ServedRuns, transcriptCache: string | null | undefined): ViewData {
  // The listing scan (every run directory's manifest; ~0.3 s for a thousand runs) once, before the first page asks:
  // every page needs it (the runs list, and any run key a URL names), and it is kept while no run comes or goes.
  runs.listed();
  const data = new ViewData(runs, { transcriptCache });
  // And the runs list's first window (its newest runs' facts: a few small reads each, ~0.2 s for 50 runs under load),
  // the request every visit starts with: read once here, it is answered from the cache until those runs change.
  try {
    data.handlers['runs/page']({ offset: 0, limit: runsPageChunk });
  } catch {
    // a run that cannot be read now is reported to the page that asks, as before
  }
  warmDashboardCode(runs);
  return data;
}

function listen(app: Hono, port: number, host: string): Promise<Server> {
  return new Promise<Server>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port, hostname: host }, () => resolve(s as Server)) as Server;
    s.once('error', reject);
  });
}

/** The handle of a listening server: where a browser reaches it, and how to stop it (the feed first). */
function servedAt(server: Server, host: string, port: number, token: string | undefined, feed: LiveFeed): ViewServer {
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
