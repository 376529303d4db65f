import type { Hono } from 'hono';
import { scriptChunks, type Asset } from './assets.js';
import { browserPageHtml, browserPages } from './browserPages.js';
import { firstRequestOf, requestUrl } from '../webview/firstRequest.js';

/** The browser pages (`/`, `/<page>.html`) and the webview bundles' assets (`/assets/<name>`). */
export function addPageRoutes(app: Hono, assets: Map<string, Asset>, commands: string[]): void {
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
}
