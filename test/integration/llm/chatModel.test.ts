// The adapter against a real OpenAI-compatible server on loopback: every fault end to end, cache and replay,
// accounting, balancing, key hygiene. The server needs nothing installed, so these tests never skip.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CancelledError } from '../../../src/core/ports/cancellation.js';
import { addUsage, zeroUsage } from '../../../src/core/ports/model.js';
import type { ChatModel, ChatResponse } from '../../../src/core/ports/model.js';
import { roleMarker } from '../../../src/core/roles/llm/roleMarker.js';
import { endpointSchema } from '../../../src/core/spec/run.js';
import type { EndpointConfig } from '../../../src/core/spec/run.js';
import { createChatModel } from '../../../src/llm/createChatModel.js';
import type { ChatModelOptions, LlmRoleConfig } from '../../../src/llm/createChatModel.js';
import { createEndpointPool } from '../../../src/llm/endpointPool.js';
import { ModelError } from '../../../src/llm/modelError.js';
import { createRequestCache } from '../../../src/llm/requestCache.js';
import { reply, startModelServer } from '../../support/modelServer.js';
import type { ModelServer } from '../../support/modelServer.js';

const secret = 'sk-test-0123456789abcdefSECRET';
const role: LlmRoleConfig = { kind: 'llm', endpoint: 'local', model: 'test-model', temperature: 0, maxTokens: 256 };

function endpointFor(urls: string[], extra: Partial<EndpointConfig> = {}): EndpointConfig {
  return endpointSchema.parse({ name: 'local', baseUrls: urls, apiKeyEnv: 'COEVOLVE_TEST_KEY', timeoutMs: 2000, maxRetries: 3, ...extra });
}

const ask = (text: string, extra: Record<string, unknown> = {}) => ({
  messages: [
    { role: 'system' as const, content: `${roleMarker('agent')}\nYou are a test.` },
    { role: 'user' as const, content: text },
  ],
  ...extra,
});

describe('llm adapter against a loopback OpenAI-compatible server', function () {
  let server: ModelServer;
  let cacheDir: string;
  const delays: number[] = [];
  const options = (extra: ChatModelOptions = {}): ChatModelOptions => ({
    env: { COEVOLVE_TEST_KEY: secret },
    backoff: { baseDelayMs: 5, maxDelayMs: 50 },
    sleep: (ms) => {
      delays.push(ms);
      return new Promise((r) => setTimeout(r, ms));
    },
    ...extra,
  });

  beforeEach(async () => {
    server = await startModelServer();
    cacheDir = await mkdtemp(join(tmpdir(), 'coevolve-llm-cache-'));
    delays.length = 0;
  });
  afterEach(async () => {
    await server.close();
    await rm(cacheDir, { recursive: true, force: true });
  });

  it('completes a request, sends the key from apiKeyEnv and prices the usage', async () => {
    server.script('agent', reply.text('hello', { promptTokens: 1000, completionTokens: 500 }));
    const endpoint = endpointFor([server.baseUrl], { prices: { 'test-model': { inputPerMTok: 2, outputPerMTok: 8 } } });
    const model = createChatModel(endpoint, role, options());
    // The SDK would send these from the environment to whatever server the URL names.
    process.env.OPENAI_ORG_ID = 'org-must-not-leak';
    process.env.OPENAI_PROJECT_ID = 'proj-must-not-leak';
    const res = await model.complete(ask('hi')).finally(() => {
      delete process.env.OPENAI_ORG_ID;
      delete process.env.OPENAI_PROJECT_ID;
    });
    assert.equal(res.message.content, 'hello');
    assert.ok(!JSON.stringify(server.requests[0]?.headers).includes('must-not-leak'));
    assert.deepEqual(res.usage, { promptTokens: 1000, completionTokens: 500, cachedTokens: 0, costUsd: (1000 * 2 + 500 * 8) / 1e6 });
    assert.equal(res.cached, false);
    assert.equal(server.requests[0]?.authorization, `Bearer ${secret}`);
    assert.equal(server.requests[0]?.body.temperature, 0, 'role sampling parameters are applied');
    assert.equal(server.requests[0]?.body.max_tokens, 256);
  });

  it('streams content and tool calls and takes usage from the final chunk', async () => {
    const script = { content: 'Let me look.', toolCalls: [{ name: 'run_command', arguments: { command: 'ls -la /workspace' } }, { name: 'message_user', arguments: { text: 'Which file?' } }], usage: { promptTokens: 40, completionTokens: 12, cachedTokens: 8 } };
    server.script('agent', script, script);
    const model = createChatModel(endpointFor([server.baseUrl]), role, options());
    const streamed = await model.complete(ask('go', { stream: true }));
    const plain = await model.complete(ask('go'));
    assert.equal(server.requests[0]?.stream, true);
    assert.deepEqual((server.requests[0]?.body.stream_options as { include_usage: boolean }).include_usage, true);
    assert.equal(streamed.message.content, 'Let me look.');
    assert.deepEqual(streamed.message.toolCalls.map((c) => [c.name, JSON.parse(c.arguments)]), [['run_command', { command: 'ls -la /workspace' }], ['message_user', { text: 'Which file?' }]]);
    assert.equal(streamed.finishReason, 'tool_calls');
    assert.deepEqual(streamed.usage, { promptTokens: 40, completionTokens: 12, cachedTokens: 8, costUsd: 0 });
    const withoutIds = (r: ChatResponse) => ({ ...r.message, toolCalls: r.message.toolCalls.map((c) => ({ name: c.name, arguments: c.arguments })) });
    assert.deepEqual(withoutIds(streamed), withoutIds(plain), 'streaming changes nothing in the result');
  });

  it('retries a 429 after the Retry-After the server asked for', async () => {
    server.script('agent', reply.status(429, '1'), reply.text('ok'));
    const model = createChatModel(endpointFor([server.baseUrl]), role, options());
    const res = await model.complete(ask('hi'));
    assert.equal(res.message.content, 'ok');
    assert.equal(server.count(), 2);
    assert.equal(delays.length, 1);
    assert.ok((delays[0] ?? 0) >= 1000, `waited ${delays[0]} ms, Retry-After asked for 1000`);
    assert.equal(model.stats?.().retries, 1);
  });

  it('retries 500s with growing backoff and fails with an actionable error when retries run out', async () => {
    server.script('agent', reply.status(500), reply.status(502), reply.text('ok'));
    const model = createChatModel(endpointFor([server.baseUrl]), role, options({ random: () => 1 }));
    assert.equal((await model.complete(ask('a'))).message.content, 'ok');
    assert.deepEqual(delays, [5, 10], 'exponential backoff (jitter pinned at its top)');

    server.script('agent', reply.status(500), reply.status(500), reply.status(500), reply.status(500));
    const err = await model.complete(ask('b')).then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof ModelError);
    assert.equal(err.kind, 'server_error');
    assert.equal(err.attempts, 4);
    assert.match(err.message, /failed after 4 attempts: endpoint "local" \(http:\/\/127\.0\.0\.1:\d+\/v1\), model "test-model": HTTP 500/);
    assert.match(err.message, /Check the server's log/);
    assert.equal(server.count(), 3 + 4);
  });

  it('does not retry a client error', async () => {
    server.script('agent', reply.status(400));
    const model = createChatModel(endpointFor([server.baseUrl]), role, options());
    await assert.rejects(model.complete(ask('a')), (e: unknown) => e instanceof ModelError && e.kind === 'http_error' && e.status === 400);
    assert.equal(server.count(), 1);
  });

  it('times out a hanging request, retries it, and reports a timeout when it keeps hanging', async () => {
    const endpoint = endpointFor([server.baseUrl], { timeoutMs: 200, maxRetries: 1 });
    server.script('agent', reply.hang(), reply.text('late but fine'));
    const model = createChatModel(endpoint, role, options());
    assert.equal((await model.complete(ask('a', { stream: true }))).message.content, 'late but fine');
    server.script('agent', reply.hang(), reply.hang());
    await assert.rejects(model.complete(ask('b')), (e: unknown) => e instanceof ModelError && e.kind === 'timeout' && /within 200 ms/.test(e.message));
    assert.equal(server.count(), 4);
  });

  it('stops at once when cancelled, without retrying', async () => {
    server.script('agent', reply.hang());
    const model = createChatModel(endpointFor([server.baseUrl], { timeoutMs: 60_000 }), role, options());
    const controller = new AbortController();
    const pending = model.complete(ask('a', { stream: true, signal: controller.signal }));
    while (server.count() === 0) await new Promise((r) => setTimeout(r, 5));
    controller.abort(new CancelledError('user stopped the run'));
    await assert.rejects(pending, (e: unknown) => e instanceof CancelledError);
    assert.equal(server.count(), 1);
    assert.equal(model.stats?.().retries, 0);
  });

  it('ends a call cancelled while it waits for a slot at once, sends it never and frees its place', async () => {
    const endpoint = endpointFor([server.baseUrl], { maxConcurrency: 1, timeoutMs: 60_000 });
    const pool = createEndpointPool(endpoint, secret);
    const model = createChatModel(endpoint, role, options({ pool }));
    // The first call holds the only slot until the test lets its answer go.
    let release = (): void => undefined;
    const gate = new Promise<void>((r) => (release = r));
    server.handle('agent', async (r) => {
      const text = String(r.body.messages.at(-1)?.content);
      if (text === 'holder') await gate;
      return reply.text(`echo ${text}`);
    });
    const holder = model.complete(ask('holder'));
    while (server.count() === 0) await pause(5);
    const controller = new AbortController();
    const queued = model.complete(ask('queued', { stream: true, signal: controller.signal }));
    await pause(20);
    assert.deepEqual(pool.load().map((l) => l.inFlight), [2], 'the second call waits for the slot');

    controller.abort(new CancelledError('user stopped the run'));
    const outcome = await Promise.race([queued.then(() => 'answered', (e: unknown) => e), pause(1000).then(() => 'still waiting')]);
    assert.ok(outcome instanceof CancelledError, `the queued call ended with the cancellation, not: ${String(outcome)}`);
    assert.deepEqual(pool.load().map((l) => l.inFlight), [1], 'the cancelled call left the queue');

    release();
    assert.equal((await holder).message.content, 'echo holder');
    assert.equal((await model.complete(ask('after'))).message.content, 'echo after', 'the next call gets the slot');
    assert.deepEqual(server.requests.map((r) => r.body.messages.at(-1)?.content), ['holder', 'after'], 'the cancelled call was never sent');
    assert.equal(model.stats?.().networkRequests, 2);
    assert.deepEqual(pool.load().map((l) => l.inFlight), [0]);
  });

  it('records in rw mode, then replays with zero requests; a replay miss fails loudly without a request', async () => {
    server.handle('agent', (r) => reply.text(`echo ${r.body.messages.at(-1)?.content}`));
    const recorder = createChatModel(endpointFor([server.baseUrl]), role, options({ cache: createRequestCache(cacheDir, 'rw') }));
    const recorded: ChatResponse[] = [];
    for (const text of ['one', 'two', 'three']) recorded.push(await recorder.complete(ask(text)));
    assert.equal(server.count(), 3);
    // rw serves repeats from the cache too.
    assert.equal((await recorder.complete(ask('two'))).cached, true);
    assert.equal(server.count(), 3);

    // Replay needs no key: the env is empty here.
    const replayer = createChatModel(endpointFor([server.baseUrl]), role, { cache: createRequestCache(cacheDir, 'replay'), env: {} });
    for (const [i, text] of ['one', 'two', 'three'].entries()) {
      const res = await replayer.complete(ask(text, { stream: true }));
      assert.equal(res.cached, true);
      assert.deepEqual(res.message, recorded[i]?.message);
      assert.deepEqual(res.usage, recorded[i]?.usage);
    }
    const err = await replayer.complete(ask('four')).then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof ModelError && err.kind === 'replay_miss');
    assert.match(err.message, /request cache miss in replay mode: model "test-model", 2 messages, first message \(system\) sha256:[0-9a-f]{12}/);
    assert.match(err.message, /record this request first with cache mode "rw"/);
    assert.equal(server.count(), 3, 'the replay made no request');
    assert.equal(replayer.stats?.().networkRequests, 0);
    assert.equal(replayer.stats?.().spentUsd, 0);
  });

  it('replays a seeded call by position when what the model was shown differs from the recording', async () => {
    server.script('agent', reply.text('recorded answer'));
    const endpoint = endpointFor([server.baseUrl]);
    const observed = (when: string, seed?: number) => ({
      messages: [
        { role: 'system' as const, content: `${roleMarker('agent')}\nYou are a test.` },
        { role: 'user' as const, content: 'what time is it?' },
        { role: 'assistant' as const, content: null, toolCalls: [{ id: 'c1', name: 'run_command', arguments: '{"command":"date"}' }] },
        { role: 'tool' as const, toolCallId: 'c1', content: when },
      ],
      ...(seed !== undefined ? { seed } : {}),
    });
    await createChatModel(endpoint, role, options({ cache: createRequestCache(cacheDir, 'rw') })).complete(observed('Mon 10:00', 42));
    const lines: string[] = [];
    const replayer = createChatModel(endpoint, role, { cache: createRequestCache(cacheDir, 'replay'), env: {}, log: (l) => lines.push(l) });
    const res = await replayer.complete(observed('Mon 10:01', 42));
    assert.equal(res.message.content, 'recorded answer');
    assert.equal(res.cached, true);
    assert.match(lines.join('\n'), /by position/);
    await assert.rejects(replayer.complete(observed('Mon 10:01', 43)), (e: unknown) => e instanceof ModelError && e.kind === 'replay_miss');
    await assert.rejects(replayer.complete(observed('Mon 10:01')), (e: unknown) => e instanceof ModelError && e.kind === 'replay_miss', 'seedless calls match exactly or not at all');
    assert.equal(server.count(), 1);
  });

  it('keeps the key out of cache files and error messages', async () => {
    server.script('agent', reply.text('cached answer'), { status: 401, message: `Incorrect API key provided: ${secret}. Authorization: Bearer ${secret}` });
    const model = createChatModel(endpointFor([server.baseUrl]), role, options({ cache: createRequestCache(cacheDir, 'rw'), apiKey: secret }));
    await model.complete(ask('a'));
    const err = await model.complete(ask('b')).then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof ModelError && err.kind === 'http_error' && err.status === 401);
    assert.ok(!err.message.includes(secret) && !err.message.includes('0123456789abcdef'), err.message);
    assert.match(err.message, /\[redacted\]/);
    assert.match(err.message, /Check the API key in COEVOLVE_TEST_KEY/);
    assert.equal(err.cause, undefined);
    const files = await listFiles(cacheDir);
    assert.equal(files.length, 1, 'one entry; no positional index for a seedless call');
    for (const f of files) assert.ok(!(await readFile(f, 'utf8')).includes(secret));
  });

  it('scrubs the key of a pool the host built, which the model itself was never given', async () => {
    server.script('agent', { status: 403, message: `key ${secret} may not use this model` });
    const endpoint = endpointFor([server.baseUrl]);
    const model = createChatModel(endpoint, role, { pool: createEndpointPool(endpoint, secret), env: {} });
    const err = await model.complete(ask('a')).then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof ModelError && err.status === 403);
    assert.ok(!err.message.includes(secret), err.message);
  });

  it('takes a lazy key in a shared pool, so a replayed run needs none and a live one says which is missing', async () => {
    server.script('agent', reply.text('recorded'));
    const endpoint = endpointFor([server.baseUrl]);
    await createChatModel(endpoint, role, options({ cache: createRequestCache(cacheDir, 'rw') })).complete(ask('a'));
    let asked = 0;
    const lazyPool = createEndpointPool(endpoint, () => {
      asked++;
      throw new ModelError('missing_key', 'endpoint "local": no API key — the environment variable COEVOLVE_TEST_KEY is not set');
    });
    const replayer = createChatModel(endpoint, role, { pool: lazyPool, cache: createRequestCache(cacheDir, 'replay') });
    assert.equal((await replayer.complete(ask('a'))).message.content, 'recorded');
    assert.equal(asked, 0, 'a replay never asks for the key');
    const live = createChatModel(endpoint, role, { pool: lazyPool });
    await assert.rejects(live.complete(ask('b')), (e: unknown) => e instanceof ModelError && e.kind === 'missing_key');
    assert.equal(asked, 1);
    assert.equal(server.count(), 1);
  });

  it('names the missing key variable when the key is absent', async () => {
    const model = createChatModel(endpointFor([server.baseUrl]), role, { env: {} });
    await assert.rejects(model.complete(ask('a')), (e: unknown) => e instanceof ModelError && e.kind === 'missing_key' && /COEVOLVE_TEST_KEY is not set/.test(e.message));
    assert.equal(server.count(), 0);
  });

  it('adds usage and cost up exactly', async () => {
    const usages = [
      { promptTokens: 1234, completionTokens: 56, cachedTokens: 100 },
      { promptTokens: 999, completionTokens: 1, cachedTokens: 0 },
      { promptTokens: 70_000, completionTokens: 4321, cachedTokens: 512 },
    ];
    server.script('agent', ...usages.map((u) => reply.text('x', u)));
    const prices = { 'test-model': { inputPerMTok: 0.15, outputPerMTok: 0.6 } };
    const model = createChatModel(endpointFor([server.baseUrl], { prices }), role, options());
    let total = zeroUsage();
    for (const [i, u] of usages.entries()) {
      const res = await model.complete(ask(`q${i}`));
      assert.deepEqual(res.usage, { ...u, costUsd: (u.promptTokens * 0.15 + u.completionTokens * 0.6) / 1e6 });
      total = addUsage(total, res.usage);
    }
    const stats = model.stats?.();
    assert.deepEqual(stats?.usage, total);
    assert.equal(stats?.usage.promptTokens, 1234 + 999 + 70_000);
    assert.equal(stats?.usage.completionTokens, 56 + 1 + 4321);
    assert.equal(stats?.usage.cachedTokens, 612);
    assert.equal(stats?.spentUsd, total.costUsd);
    assert.equal(stats?.calls, 3);
    assert.equal(stats?.networkRequests, 3);
  });

  it('balances over several base URLs and holds the concurrency limit of each', async () => {
    const second = await startModelServer();
    try {
      for (const s of [server, second]) s.handle('any', () => ({ content: 'ok', delayMs: 40 }));
      const endpoint = endpointFor([server.baseUrl, second.baseUrl], { maxConcurrency: 2 });
      const pool = createEndpointPool(endpoint, secret);
      // Two roles sharing the pool share its limits.
      const models: ChatModel[] = [createChatModel(endpoint, role, options({ pool })), createChatModel(endpoint, { ...role, model: 'other' }, options({ pool }))];
      await Promise.all(Array.from({ length: 12 }, (_, i) => (models[i % 2] as ChatModel).complete(ask(`p${i}`))));
      assert.equal(server.count(), 6);
      assert.equal(second.count(), 6);
      assert.ok(server.peakInFlight <= 2 && second.peakInFlight <= 2, `peaks ${server.peakInFlight}, ${second.peakInFlight}`);
      assert.deepEqual(pool.load().map((l) => l.inFlight), [0, 0]);
    } finally {
      await second.close();
    }
  });

  it('lists the models of the server (the SDK talks to it as to any endpoint)', async () => {
    const res = await fetch(`${server.baseUrl}/models`);
    const body = (await res.json()) as { data: { id: string }[] };
    assert.deepEqual(body.data.map((m) => m.id), ['test-model']);
  });

  describe('the context window from /v1/models', () => {
    let listing: ModelServer;
    const logs: string[] = [];
    beforeEach(async () => {
      listing = await startModelServer({ flavor: 'vllm', contextWindow: 4096 });
      logs.length = 0;
    });
    afterEach(() => listing.close());
    const windowModel = (extra: ChatModelOptions = {}): ChatModel =>
      createChatModel(endpointFor([listing.baseUrl], { timeoutMs: 60_000 }), role, options({ log: (line) => logs.push(line), ...extra }));

    it('stops reading it at once when cancelled, and reads it on a later call', async () => {
      listing.scriptModelList(reply.hang());
      const model = windowModel();
      const controller = new AbortController();
      const pending = model.contextWindow?.(controller.signal) as Promise<number | undefined>;
      while (listing.modelListRequests === 0) await pause(5);
      controller.abort(new CancelledError('user stopped the run'));
      const outcome = await Promise.race([pending.then((w) => `answered ${w}`, (e: unknown) => e), pause(1000).then(() => 'still waiting')]);
      assert.ok(outcome instanceof CancelledError, `the read ended with the cancellation, not: ${String(outcome)}`);
      assert.deepEqual(logs, [], 'a cancelled read is not a failure to log');
      assert.equal(await model.contextWindow?.(), 4096, 'a later call reads it');
      assert.equal(listing.modelListRequests, 2);
    });

    it('shares one read between callers at once; one that cancels leaves the others their answer', async () => {
      listing.scriptModelList({ delayMs: 200 });
      const model = windowModel();
      const controller = new AbortController();
      const first = model.contextWindow?.(controller.signal) as Promise<number | undefined>;
      const second = model.contextWindow?.() as Promise<number | undefined>;
      while (listing.modelListRequests === 0) await pause(5);
      controller.abort(new CancelledError('one rollout stopped'));
      await assert.rejects(first, (e: unknown) => e instanceof CancelledError);
      assert.equal(await second, 4096, 'the other caller still gets the shared read');
      assert.equal(listing.modelListRequests, 1, 'one read for both');
      assert.deepEqual(logs, []);
    });

    it('reads it again after a transient failure, keeps it once read, and records only what was read', async () => {
      listing.scriptModelList(reply.status(503));
      const model = windowModel({ cache: createRequestCache(cacheDir, 'rw') });
      assert.equal(await model.contextWindow?.(), undefined, 'unknown while the read fails');
      assert.match(logs.join('\n'), /could not read the context window of "test-model" from local's \/v1\/models .*503/);
      assert.equal(await model.contextWindow?.(), 4096, 'a later call asks again');
      assert.equal(await model.contextWindow?.(), 4096);
      assert.equal(listing.modelListRequests, 2, 'once read, it is kept');
      const replayed = windowModel({ cache: createRequestCache(cacheDir, 'replay') });
      assert.equal(await replayed.contextWindow?.(), 4096, 'the recording holds the window, not the failure');
      assert.equal(listing.modelListRequests, 2);
    });

    it('keeps a definite refusal for the run (one request, one log line) but never records it', async () => {
      listing.scriptModelList(reply.status(404));
      const model = windowModel({ cache: createRequestCache(cacheDir, 'rw') });
      assert.equal(await model.contextWindow?.(), undefined);
      assert.equal(await model.contextWindow?.(), undefined);
      assert.equal(listing.modelListRequests, 1, 'a 404 is the same answer every time: not asked again in this run');
      assert.equal(logs.length, 1);
      const nextRun = windowModel({ cache: createRequestCache(cacheDir, 'rw') });
      assert.equal(await nextRun.contextWindow?.(), 4096, 'a later run asks again');
    });
  });
});

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) out.push(join(entry.parentPath, entry.name));
  }
  return out;
}

function pause(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
