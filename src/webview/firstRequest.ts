// The first request a browser-host page makes, known from its URL before its code runs. `coevolve view` names it
// in the page's head as a preload (`<link rel="preload" as="fetch">` of a GET on /api/rpc), so the browser fetches
// the data while it fetches and runs the page's bundle; the page's transport then asks for the same URL and gets
// the preloaded answer. Both sides build the URL with `requestUrl`, so a page whose first request differs from the
// one named (another version, another state) simply asks with a POST as usual. The page still carries no data.
import { stateFromUrl, type BrowserPage } from './browserLinks.js';
import type { RequestMethod } from './protocol.js';

/** Rows per runs/page request of the runs list (the first window is the preloaded request). */
export const runsPageChunk = 50;

/** The read requests a page may ask for with a GET (its preload): nothing that writes, nothing large in its params. */
export const preloadMethods: readonly RequestMethod[] = ['runs/page', 'dashboard/get', 'rollout/get'];

export interface FirstRequest {
  method: RequestMethod;
  params: Record<string, unknown>;
}

/** What the page at `search` asks for first, when the URL alone says it (the same params the page builds). */
export function firstRequestOf(page: BrowserPage, search: string): FirstRequest | undefined {
  const s = stateFromUrl(page, search);
  if (!s) return undefined;
  switch (page) {
    case 'runs':
      return { method: 'runs/page', params: { offset: 0, limit: runsPageChunk } };
    case 'dashboard':
      return { method: 'dashboard/get', params: { runDir: s['runDir'], ...(s['compareRunDir'] ? { compareRunDir: s['compareRunDir'] } : {}) } };
    case 'rollout':
      return { method: 'rollout/get', params: { runDir: s['runDir'], generation: s['generation'], rolloutId: s['rolloutId'] } };
    default:
      return undefined;
  }
}

/** The GET URL of a request (relative, as the page's other API URLs are). */
export function requestUrl(method: string, params: unknown): string {
  return `api/rpc?${new URLSearchParams({ method, params: JSON.stringify(params) }).toString()}`;
}
