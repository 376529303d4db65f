import type { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { LiveFeed } from './liveFeed.js';

/**
 * `/api/events`: the live feed as server-sent events, from the client's Last-Event-ID on; a comment every 15 s of
 * silence keeps the connection open.
 */
export function addEventStream(app: Hono, feed: LiveFeed): void {
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
}
