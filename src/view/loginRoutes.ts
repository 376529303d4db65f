import type { Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { getCookie, setCookie } from 'hono/cookie';
import { loginPageHtml } from './loginPage.js';
import { makeToken, sameSecret } from './requestGuard.js';

const sessionCookie = 'coevolve_view_session';

/** Whether a request carries the token: a bearer header, or the session cookie the login form sets (never a URL). */
export function tokenAuthorizer(token: string | undefined, sessions: ReadonlySet<string>): (c: Context) => boolean {
  return (c: Context): boolean => {
    const auth = c.req.header('authorization');
    if (auth?.startsWith('Bearer ') && token && sameSecret(auth.slice(7), token)) return true;
    const session = getCookie(c, sessionCookie);
    return session !== undefined && sessions.has(session);
  };
}

/** The login form: a right token opens a session (an http-only, same-site cookie) and goes to the runs list. */
export function addLoginRoutes(app: Hono, token: string | undefined, sessions: Set<string>): void {
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
}
