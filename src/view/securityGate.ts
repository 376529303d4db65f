import type { Context, Hono } from 'hono';
import { browserCsp, browserPages } from './browserPages.js';
import { hostAllowed, originAllowed } from './requestGuard.js';

/** What the gate needs to know of its server; the port is read per request, as it is known only once listening. */
export interface GateOptions {
  port(): number;
  allowHosts(): string[];
  /** Set when the server is bound off loopback. */
  token: string | undefined;
  authorized(c: Context): boolean;
}

/**
 * The middleware every request passes, in order: the security headers, the Host check (no DNS rebinding), the
 * Origin / Sec-Fetch check (no cross-site reads or writes), and off loopback the token.
 */
export function guardEveryRequest(app: Hono, gate: GateOptions): void {
  app.use('*', async (c, next) => {
    c.header('Content-Security-Policy', browserCsp);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('X-Frame-Options', 'DENY');
    c.header('Cross-Origin-Opener-Policy', 'same-origin');
    c.header('Cross-Origin-Resource-Policy', 'same-origin');
    const hostHeader = c.req.header('host') ?? '';
    if (!hostAllowed(hostHeader, gate.port(), gate.allowHosts())) return c.text(`Host "${hostHeader.slice(0, 100)}" is not this server's; reach it as localhost or by IP, or start it with --allow-host NAME`, 421);
    const path = new URL(c.req.url).pathname;
    const isPage = path === '/' || path === '/login' || Object.hasOwn(browserPages, path.slice(1));
    if (!originAllowed({ method: c.req.method, host: hostHeader, origin: c.req.header('origin'), fetchSite: c.req.header('sec-fetch-site'), fetchMode: c.req.header('sec-fetch-mode'), isPage })) {
      return c.text('cross-origin request refused', 403);
    }
    if (gate.token && path !== '/login' && path !== '/assets/theme.css' && !gate.authorized(c)) {
      if (c.req.method === 'GET' && isPage) return c.redirect('/login', 303);
      return c.text('this coevolve view needs its access token (log in at /login, or send Authorization: Bearer <token>)', 401);
    }
    await next();
  });
}
