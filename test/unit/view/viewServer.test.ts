import * as assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readCuration } from '../../../src/store/curation.js';
import { startViewServer, type ViewServer } from '../../../src/view/viewServer.js';
import { requestUrl } from '../../../src/webview/firstRequest.js';
import { makeRun } from '../../fixtures/makeRun.js';
import { ownTranscriptCache } from '../../support/transcriptCache.js';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw HTTP request (node:http, so Host, Origin and Sec-Fetch-* are sent exactly as given). */
function send(port: number, path: string, o: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: o.method ?? 'GET', headers: { host: `127.0.0.1:${port}`, ...o.headers } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(o.body);
  });
}

const rpc = (port: number, message: unknown, headers: Record<string, string> = {}): Promise<Reply> =>
  send(port, '/api/rpc', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(message) });

describe('coevolve view server: the boundary', function () {
  this.timeout(30_000);
  let out: string;
  let runKey: string;
  let loop: ViewServer;
  let open: ViewServer;

  before(async () => {
    out = mkdtempSync(join(tmpdir(), 'coevolve-view-'));
    const runDir = await makeRun(join(out, 'runs'), { generations: 2 });
    runKey = runDir.split('/').pop() as string;
    // A run directory with a planted link: never served.
    const planted = await makeRun(join(out, 'runs'), { name: 'planted', seed: 9, generations: 1, startedAt: '2025-11-01T09:00:00.000Z' });
    writeFileSync(join(out, 'secret.txt'), 'the host secret');
    symlinkSync(join(out, 'secret.txt'), join(planted, 'rollouts', 'g0000', 'stolen.json'));
    loop = await startViewServer({ transcriptCache: ownTranscriptCache(), sources: [join(out, 'runs')], port: 0, tailMs: 60_000 });
    open = await startViewServer({ transcriptCache: ownTranscriptCache(), sources: [join(out, 'runs')], host: '0.0.0.0', port: 0, tailMs: 60_000 });
  });
  after(async () => {
    await loop?.close();
    await open?.close();
    rmSync(out, { recursive: true, force: true });
  });

  it('on loopback answers pages, assets and the API without a token, with the CSP header', async () => {
    const page = await send(loop.port, '/rollout.html');
    assert.equal(page.status, 200);
    assert.match(String(page.headers['content-security-policy']), /default-src 'none'.*script-src 'self'/);
    assert.equal(page.headers['x-frame-options'], 'DENY');
    assert.equal((await send(loop.port, '/assets/rolloutViewer.js')).status, 200);
    // The dashboard's script is split (scripts/build.mjs): the page names its chunks as modulepreloads, each served.
    const chunks = [...(await send(loop.port, `/dashboard.html?run=${runKey}`)).body.matchAll(/<link rel="modulepreload" href="assets\/([^"]+)">/g)].map((m) => m[1]);
    assert.ok(chunks.length > 0, 'the dashboard page names its chunks');
    for (const c of chunks) assert.equal((await send(loop.port, `/assets/${c}`)).status, 200, `${c} is served`);
    // Every page names its icon, and it is served: a browser otherwise asks for /favicon.ico and logs a 404 each time.
    const icon = /<link rel="icon" type="image\/svg\+xml" href="(assets\/[^"]+)">/.exec(page.body)?.[1];
    assert.ok(icon, 'the page names its icon');
    const served = await send(loop.port, `/${icon}`);
    assert.deepEqual([served.status, served.headers['content-type']], [200, 'image/svg+xml']);
    const list = JSON.parse((await rpc(loop.port, { kind: 'request', id: 1, method: 'runs/list', params: {} })).body);
    assert.ok(list.ok && list.result.some((r: { runDir: string }) => r.runDir === runKey));
  });

  it('refuses a Host that is not its own (DNS rebinding) and cross-site reads and writes, even on loopback', async () => {
    assert.equal((await send(loop.port, '/', { headers: { host: `attacker.example:${loop.port}` } })).status, 421);
    assert.equal((await send(loop.port, '/', { headers: { host: '127.0.0.1:1' } })).status, 421, 'another port is another origin');
    const write = await rpc(loop.port, { kind: 'request', id: 1, method: 'runs/list', params: {} }, { origin: 'http://attacker.example' });
    assert.equal(write.status, 403);
    const events = await send(loop.port, '/api/events', { headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors', origin: 'http://attacker.example' } });
    assert.equal(events.status, 403);
    const script = await send(loop.port, '/assets/runsPage.js', { headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' } });
    assert.equal(script.status, 403, 'no cross-site subresource reads');
    const link = await send(loop.port, '/rollout.html', { headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' } });
    assert.equal(link.status, 200, 'a link from elsewhere may open a page');
    const nullOrigin = await rpc(loop.port, { kind: 'request', id: 1, method: 'runs/list', params: {} }, { origin: 'null', 'sec-fetch-site': 'cross-site' });
    assert.equal(nullOrigin.status, 403, 'Origin: null from another site is refused');
    const sandboxed = await rpc(loop.port, { kind: 'request', id: 1, method: 'runs/list', params: {} }, { origin: 'null' });
    assert.equal(sandboxed.status, 403, 'Origin: null with nothing to vouch for it is refused');
    const form = await send(loop.port, '/api/rpc', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' });
    assert.equal(form.status, 415, 'a simple cross-site form/text POST is not JSON');
  });

  it("names a page's first request as a preload and answers it with a GET: read requests only, same origin only, checked as a POST is", async () => {
    const page = await send(loop.port, `/dashboard.html?run=${runKey}`);
    const href = /<link rel="preload" as="fetch" crossorigin="anonymous" href="([^"]+)" data-coevolve-request>/.exec(page.body)?.[1]?.replace(/&amp;/g, '&');
    assert.equal(href, requestUrl('dashboard/get', { runDir: runKey }), 'the URL the page itself will ask for');
    const got = await send(loop.port, `/${href}`, { headers: { 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors' } });
    assert.equal(got.status, 200);
    assert.equal(got.headers['cache-control'], 'no-store');
    const posted = JSON.parse((await rpc(loop.port, { kind: 'request', id: 0, method: 'dashboard/get', params: { runDir: runKey } })).body);
    assert.deepEqual(JSON.parse(got.body), posted, 'the same answer as the POST');
    assert.match((await send(loop.port, '/index.html')).body, /href="api\/rpc\?method=runs%2Fpage&amp;params=/);
    assert.doesNotMatch((await send(loop.port, '/dashboard.html?run=..')).body, /rel="preload"/, 'no preload for a URL that names no run');
    const get = (method: string, params: unknown, headers: Record<string, string> = {}): Promise<Reply> => send(loop.port, `/${requestUrl(method, params)}`, { headers });
    for (const [method, params] of [['curation/apply', { runDir: runKey, target: { kind: 'rollout', id: 'g0p0-t0' }, action: 'accept' }], ['runs/list', {}], ['rollouts/search', { runDir: runKey, query: 'x' }]] as const) {
      assert.equal((await get(method, params)).status, 405, `${method} is not answered to a GET`);
    }
    for (const runDir of ['../runs', '/etc', 'no-such-run']) assert.equal(JSON.parse((await get('dashboard/get', { runDir })).body).ok, false, `runDir ${runDir} refused`);
    assert.equal((await get('dashboard/get', { runDir: runKey, extra: 1 })).status, 400, 'params are checked as a POST\'s are');
    assert.equal((await send(loop.port, '/api/rpc?method=runs%2Fpage&params=%7Bnot-json')).status, 400);
    assert.equal((await get('dashboard/get', { runDir: runKey }, { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' })).status, 403, 'another site cannot read it (a preload, an img or a script of its own)');
    assert.equal((await get('dashboard/get', { runDir: runKey }, { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors', origin: 'http://attacker.example' })).status, 403);
    assert.equal((await send(open.port, `/${requestUrl('runs/page', { offset: 0, limit: 5 })}`)).status, 401, 'off loopback it needs the token');
  });

  it('refuses crafted run keys, rollout ids and traversal URLs', async () => {
    for (const runDir of ['../runs', '/etc', '..', runKey + '/..', `${out}/runs/${runKey}`, 'no-such-run']) {
      const r = JSON.parse((await rpc(loop.port, { kind: 'request', id: 2, method: 'dashboard/get', params: { runDir } })).body);
      assert.equal(r.ok, false, `runDir ${runDir} refused`);
    }
    for (const rolloutId of ['../../manifest', '..%2F..%2Fmanifest', 'x/../../y', 'g0p0-t0\u0000']) {
      const r = JSON.parse((await rpc(loop.port, { kind: 'request', id: 3, method: 'rollout/get', params: { runDir: runKey, generation: 0, rolloutId } })).body);
      assert.equal(r.ok, false, `rollout id ${JSON.stringify(rolloutId)} refused`);
    }
    for (const path of ['/assets/../package.json', '/assets/%2e%2e%2fpackage.json', '/assets/..%2f..%2fmanifest.json', '/../../etc/passwd', '/data/x.json']) {
      const r = await send(loop.port, path);
      assert.equal(r.status, 404, `${path} → ${r.status}`);
      assert.doesNotMatch(r.body, /"name": "coevolve"|root:/);
    }
  });

  it('keeps the transcript index of a search in the cache folder it is given', async () => {
    const cache = ownTranscriptCache();
    const s = await startViewServer({ transcriptCache: cache, sources: [join(out, 'runs')], port: 0, tailMs: 60_000 });
    try {
      const r = JSON.parse((await rpc(s.port, { kind: 'request', id: 5, method: 'rollouts/search', params: { runDir: runKey, query: 'exit', limit: 5 } })).body);
      assert.equal(r.ok, true, JSON.stringify(r));
      const deadline = Date.now() + 10_000;
      while (readdirSync(cache).length === 0 && Date.now() < deadline) await new Promise((done) => setTimeout(done, 50));
      assert.equal(readdirSync(cache).filter((n) => n.endsWith('.jsonl')).length, 1, 'one index file for the run, in the given folder');
    } finally {
      await s.close();
    }
  });

  it('never serves a run directory that holds a link, and says why', async () => {
    const r = JSON.parse((await rpc(loop.port, { kind: 'request', id: 4, method: 'rollouts/table', params: { runDir: (await listKey(loop, 'planted')) } })).body);
    assert.equal(r.ok, false);
    assert.match(r.error, /symbolic link/);
    assert.doesNotMatch(JSON.stringify(r), /the host secret/);
  });

  it('audits a run before its dashboard too (the dashboard reads an outline, not the opened run), as a run or as the one compared', async () => {
    // A fresh server: nothing opened the planted run before its dashboard is asked for.
    const fresh = await startViewServer({ transcriptCache: ownTranscriptCache(), sources: [join(out, 'runs')], port: 0, tailMs: 60_000 });
    try {
      const planted = await listKey(fresh, 'planted');
      for (const params of [{ runDir: planted }, { runDir: runKey, compareRunDir: planted }]) {
        const r = JSON.parse((await rpc(fresh.port, { kind: 'request', id: 6, method: 'dashboard/get', params })).body);
        assert.equal(r.ok, false, JSON.stringify(params));
        assert.match(r.error, /symbolic link/);
        assert.doesNotMatch(JSON.stringify(r), /the host secret/);
      }
      const ok = JSON.parse((await rpc(fresh.port, { kind: 'request', id: 7, method: 'dashboard/get', params: { runDir: runKey } })).body);
      assert.equal(ok.ok, true, 'the clean run\'s dashboard is served');
    } finally {
      await fresh.close();
    }
  });

  it('starts when the run it warms its code on (the smallest log among the newest) cannot be read, and serves the others', async () => {
    const folder = join(out, 'warm');
    const good = await makeRun(folder, { name: 'good', seed: 3, generations: 2 });
    const broken = await makeRun(folder, { name: 'broken', seed: 4, generations: 1, startedAt: '2025-11-02T09:00:00.000Z' });
    writeFileSync(join(broken, 'generations', readdirSync(join(broken, 'generations'))[0] as string), '{ not json');
    writeFileSync(join(broken, 'events.jsonl'), '{"seq":0');
    const s = await startViewServer({ transcriptCache: ownTranscriptCache(), sources: [folder], port: 0, tailMs: 60_000 });
    try {
      const ok = JSON.parse((await rpc(s.port, { kind: 'request', id: 10, method: 'dashboard/get', params: { runDir: good.split('/').pop() } })).body);
      assert.equal(ok.ok, true, JSON.stringify(ok).slice(0, 300));
      const bad = JSON.parse((await rpc(s.port, { kind: 'request', id: 11, method: 'dashboard/get', params: { runDir: broken.split('/').pop() } })).body);
      assert.equal(bad.ok === false || bad.result?.run?.generations?.length === 0, true, JSON.stringify(bad).slice(0, 300));
    } finally {
      await s.close();
    }
  });

  it('is read-only: curation is refused without --allow-curation', async () => {
    const before = readCuration(join(out, 'runs', runKey)).entries.length;
    const r = JSON.parse((await rpc(loop.port, { kind: 'request', id: 5, method: 'curation/apply', params: { runDir: runKey, target: { kind: 'rollout', id: 'g0p0-t0' }, action: 'accept' } })).body);
    assert.equal(r.ok, false);
    assert.match(r.error, /read-only/);
    assert.equal(readCuration(join(out, 'runs', runKey)).entries.length, before);
  });

  it('curates with --allow-curation, only targets the run has', async () => {
    const s = await startViewServer({ transcriptCache: ownTranscriptCache(), sources: [join(out, 'runs')], port: 0, allowCuration: true, tailMs: 60_000 });
    try {
      const ok = JSON.parse((await rpc(s.port, { kind: 'request', id: 6, method: 'curation/apply', params: { runDir: runKey, target: { kind: 'rollout', id: 'g0p0-t0' }, action: 'accept' } })).body);
      assert.equal(ok.ok, true, JSON.stringify(ok));
      assert.equal(ok.result.verdict, 'accepted');
      const invented = JSON.parse((await rpc(s.port, { kind: 'request', id: 7, method: 'curation/apply', params: { runDir: runKey, target: { kind: 'rollout', id: 'invented' }, action: 'accept' } })).body);
      assert.equal(invented.ok, false);
      assert.equal(readCuration(join(out, 'runs', runKey)).states.get('rollout:g0p0-t0')?.verdict, 'accepted');
    } finally {
      await s.close();
    }
  });

  it('off loopback needs the token on every route: pages, assets, API and event stream; never from a URL', async () => {
    assert.ok(open.token && open.token.length >= 32, 'a token was made');
    const page = await send(open.port, '/index.html');
    assert.equal(page.status, 303);
    assert.equal(page.headers.location, '/login');
    for (const path of ['/assets/rolloutViewer.js', '/api/events', `/api/events?token=${open.token}`, `/assets/runsPage.js?token=${open.token}`]) {
      assert.equal((await send(open.port, path)).status, 401, `${path} needs the token`);
    }
    assert.equal((await send(open.port, `/index.html?token=${open.token}`)).headers.location, '/login', 'a token in a URL counts for nothing');
    assert.equal((await rpc(open.port, { kind: 'request', id: 1, method: 'runs/list', params: {} })).status, 401);
    assert.equal((await rpc(open.port, { kind: 'request', id: 1, method: 'runs/list', params: {} }, { authorization: 'Bearer wrong' })).status, 401);
    const bearer = await rpc(open.port, { kind: 'request', id: 1, method: 'runs/list', params: {} }, { authorization: `Bearer ${open.token}` });
    assert.equal(bearer.status, 200);
    // The login form: a wrong token sets nothing; the right one sets an HttpOnly, SameSite=Strict session cookie.
    const wrong = await send(open.port, '/login', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'token=nope' });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.headers['set-cookie'], undefined);
    const login = await send(open.port, '/login', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `token=${encodeURIComponent(open.token)}` });
    assert.equal(login.status, 303);
    const cookie = String(login.headers['set-cookie']);
    assert.match(cookie, /HttpOnly/i);
    assert.match(cookie, /SameSite=Strict/i);
    assert.doesNotMatch(cookie, new RegExp(open.token.replace(/[-_]/g, '.')), 'the cookie is a session, not the token');
    const session = cookie.split(';')[0] as string;
    assert.equal((await send(open.port, '/index.html', { headers: { cookie: session } })).status, 200);
    assert.equal((await send(open.port, '/assets/rolloutViewer.js', { headers: { cookie: session } })).status, 200);
  });
});

async function listKey(s: ViewServer, name: string): Promise<string> {
  const r = JSON.parse((await rpc(s.port, { kind: 'request', id: 9, method: 'runs/list', params: {} })).body) as { result: { runDir: string; name: string }[] };
  const hit = r.result.find((x) => x.name === name);
  if (!hit) throw new Error(`run ${name} not listed`);
  return hit.runDir;
}
