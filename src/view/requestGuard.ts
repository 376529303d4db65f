import { randomBytes, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

/** Addresses that only this machine reaches. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

export function makeToken(): string {
  return randomBytes(24).toString('base64url');
}

export function sameSecret(given: string | undefined, secret: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Whether a request's Host header names this server. Loopback names and IP literals always do (a DNS-rebinding page
 * arrives with its own host name, never one of these); any other name only when listed with --allow-host.
 */
export function hostAllowed(hostHeader: string | undefined, port: number, allowedNames: readonly string[]): boolean {
  if (!hostHeader) return false;
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(hostHeader.trim());
  if (!m) return false;
  const name = (m[1] as string).toLowerCase();
  const given = m[2] === undefined ? 80 : Number(m[2]);
  if (given !== port) return false;
  const bare = name.replace(/^\[|\]$/g, '');
  return isLoopbackHost(name) || isIP(bare) !== 0 || allowedNames.map((n) => n.toLowerCase()).includes(name);
}

/**
 * Whether a request may come from where it says: a browser sends Origin on cross-origin requests and on every POST,
 * and Sec-Fetch-Site / Sec-Fetch-Mode on all of them. Another site's page may link to a page here (a navigation),
 * but can neither read the API nor the stream nor write, even on loopback. Requests without those headers come from
 * a program (curl, a script), not from a page, and are judged by the token alone.
 */
export function originAllowed(r: { method: string; host: string; origin?: string; fetchSite?: string; fetchMode?: string; isPage: boolean }): boolean {
  // A form posted under Referrer-Policy: no-referrer says `Origin: null`; then only Sec-Fetch-Site can vouch for it.
  if (r.origin === 'null') return r.fetchSite === 'same-origin';
  if (r.origin !== undefined && r.origin !== `http://${r.host}`) return false;
  if (r.fetchSite === undefined || r.fetchSite === 'same-origin' || r.fetchSite === 'none') return true;
  return (r.method === 'GET' || r.method === 'HEAD') && r.isPage && r.fetchMode === 'navigate';
}
