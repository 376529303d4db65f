import * as assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startViewServer, type ViewServer } from '../../../src/view/viewServer.js';
import { makeRun } from '../../fixtures/makeRun.js';
import { ownTranscriptCache } from '../../support/transcriptCache.js';

interface Sse {
  events: { id: string; data: { method: string; params: { runDir: string; rolloutId?: string } } }[];
  close(): void;
}

/** Reads /api/events as a browser's EventSource would, with an optional Last-Event-ID. */
function listen(port: number, lastEventId?: string): Promise<Sse> {
  return new Promise((resolve, reject) => {
    const events: Sse['events'] = [];
    const req = request({ host: '127.0.0.1', port, path: '/api/events', headers: { host: `127.0.0.1:${port}`, accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) } }, (res: IncomingMessage) => {
      let buf = '';
      res.on('data', (c: Buffer) => {
        buf += c.toString();
        let end: number;
        while ((end = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, end);
          buf = buf.slice(end + 2);
          const id = /^id: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (id && data) events.push({ id, data: JSON.parse(data) });
        }
      });
      resolve({ events, close: () => req.destroy() });
    });
    req.on('error', (e) => ((e as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(e)));
    req.end();
  });
}

const until = async (cond: () => boolean, ms = 10_000): Promise<void> => {
  const t = Date.now();
  while (!cond()) {
    if (Date.now() - t > ms) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
};

describe('coevolve view live stream', function () {
  this.timeout(30_000);
  let out: string;
  let runDir: string;
  let key: string;
  let server: ViewServer;
  let template: Record<string, unknown>;
  let seq = 0;

  const appendRollout = (id: string): void => {
    const summary = { ...(template['summary'] as object), id };
    appendFileSync(join(runDir, 'events.jsonl'), `${JSON.stringify({ ...template, seq: 100_000 + ++seq, summary })}\n`);
  };

  before(async () => {
    out = mkdtempSync(join(tmpdir(), 'coevolve-view-live-'));
    runDir = await makeRun(out, { generations: 2, unfinished: true });
    key = runDir.split('/').pop() as string;
    const lines = readFileSync(join(runDir, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    template = lines.filter((e) => e['type'] === 'rollout.finished').at(-1) as Record<string, unknown>;
    server = await startViewServer({ transcriptCache: ownTranscriptCache(), sources: [out], port: 0, tailMs: 50 });
  });
  after(async () => {
    await server?.close();
    rmSync(out, { recursive: true, force: true });
  });

  it('tells a listener about appended rollouts and resumes after a disconnect with Last-Event-ID', async () => {
    // Opening the run's table makes the server tail it.
    const r = await fetch(`${server.url}api/rpc`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ kind: 'request', id: 1, method: 'rollouts/table', params: { runDir: key, limit: 1 } }) });
    const before = ((await r.json()) as { result: { total: number } }).result.total;
    const first = await listen(server.port);
    appendRollout('live-a');
    await until(() => first.events.some((e) => e.data.method === 'rollout/changed' && e.data.params.rolloutId === 'live-a'));
    assert.ok(first.events.some((e) => e.data.method === 'run/changed' && e.data.params.runDir === key));
    const last = first.events.at(-1)!.id;
    first.close();
    // Missed while disconnected:
    appendRollout('live-b');
    appendRollout('live-c');
    await new Promise((res) => setTimeout(res, 300));
    const again = await listen(server.port, last);
    await until(() => again.events.filter((e) => e.data.method === 'rollout/changed').length >= 2);
    assert.deepEqual(again.events.filter((e) => e.data.method === 'rollout/changed').map((e) => e.data.params.rolloutId), ['live-b', 'live-c'], 'exactly what was missed, in order');
    again.close();
    const after = await fetch(`${server.url}api/rpc`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ kind: 'request', id: 2, method: 'rollouts/table', params: { runDir: key, limit: 1 } }) });
    assert.equal(((await after.json()) as { result: { total: number } }).result.total, before + 3, 'the table has the new rows');
  });

  it('tells a client with an id from an earlier server that every run changed', async () => {
    const stale = await listen(server.port, 'oldepoch.5');
    await until(() => stale.events.length > 0);
    assert.ok(stale.events.some((e) => e.data.method === 'run/changed' && e.data.params.runDir === key));
    stale.close();
  });

  it('tells a listener that a run whose dashboard alone was asked for (read as an outline, not tailed) changed', async () => {
    const other = await makeRun(out, { name: 'dash-only', seed: 4, generations: 1, unfinished: true, startedAt: '2025-11-02T09:00:00.000Z' });
    const otherKey = other.split('/').pop() as string;
    const ask = async (): Promise<number> => {
      const r = await fetch(`${server.url}api/rpc`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ kind: 'request', id: 3, method: 'dashboard/get', params: { runDir: otherKey } }) });
      return ((await r.json()) as { result: { lineage: unknown[] } }).result.lineage.length;
    };
    const specs = await ask();
    const l = await listen(server.port);
    await new Promise((res) => setTimeout(res, 2300)); // one listing scan records the log's size
    appendFileSync(join(other, 'events.jsonl'), `${JSON.stringify({ seq: 200_000, at: '2026-01-01T00:00:00.000Z', type: 'spec.added', kind: 'user', id: 'late-user', parent: null, operator: null, generation: 0 })}\n`);
    await until(() => l.events.some((e) => e.data.method === 'run/changed' && e.data.params.runDir === otherKey));
    l.close();
    assert.equal(await ask(), specs + 1, 'the next dashboard/get has the appended spec');
  });

  it('tells a listener that the dataset of a run changed when a curation decision is appended', async () => {
    const l = await listen(server.port);
    // The listing scan runs every 2 s; its first pass only records what is there.
    await new Promise((res) => setTimeout(res, 2300));
    appendFileSync(join(runDir, 'curation.jsonl'), `${JSON.stringify({ at: '2026-01-01T00:00:00.000Z', target: { kind: 'rollout', id: 'live-a' }, action: 'accept' })}\n`);
    await until(() => l.events.some((e) => e.data.method === 'dataset/changed' && e.data.params.runDir === key));
    l.close();
  });
});
