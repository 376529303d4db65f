import type { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { ViewData } from '../viewdata/viewRequests.js';
import type { HostMessage, RequestMethod } from '../webview/protocol.js';
import { parseWebviewMessage } from '../webview/protocolSchemas.js';
import { preloadMethods } from '../webview/firstRequest.js';

const writeMethods = new Set<RequestMethod>(['curation/apply']);

type Answer = (raw: unknown) => Promise<HostMessage | undefined>;

/** `/api/rpc`: the webview protocol's requests, POSTed as JSON or, for a page's preload, a GET. */
export function addRpcRoutes(app: Hono, answer: Answer): void {
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
}

/**
 * The answer to one message from a page: a request goes to the data layer; the one write (curation) only when the
 * server allows curation, read when the message arrives.
 */
export function requestAnswerer(data: ViewData, o: { readonly allowCuration?: boolean }): Answer {
  return async (raw: unknown): Promise<HostMessage | undefined> => {
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
}
