// Model adapter benchmark: 64 calls against the loopback server at a fixed 50 ms latency, concurrent vs sequential
// (target ≥ 30× throughput), and the latency of a request-cache hit against a network call measured in the same run.
//   npm run bench:models        prints a table, then one JSON line
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChatModel, ChatRequest } from '../../src/core/ports/model.js';
import { roleMarker } from '../../src/core/roles/llm/roleMarker.js';
import { endpointSchema } from '../../src/core/spec/run.js';
import { createChatModel } from '../../src/llm/createChatModel.js';
import { createRequestCache } from '../../src/llm/requestCache.js';

/** Starts the server in a child process; resolves with its base URL and a stop function. */
async function serverProcess(latency: number): Promise<{ baseUrl: string; stop: () => void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'modelServerProcess.ts'), String(latency)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0] as string);
    });
    child.on('exit', (code) => reject(new Error(`model server process exited with ${code}`)));
  });
  return { baseUrl, stop: () => child.stdin.end() };
}

/** The floor: the same calls as bare fetch requests, without the SDK or the adapter. */
function rawCall(baseUrl: string, i: number): Promise<unknown> {
  return fetch(`${baseUrl}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'raw', messages: [{ role: 'user', content: `raw ${i}` }] }) }).then((r) => r.json());
}

const calls = 64;
const latencyMs = 50;
const role = { kind: 'llm' as const, endpoint: 'bench', model: 'bench-model', temperature: 0, maxTokens: 64 };
const request = (i: number): ChatRequest => ({
  messages: [
    { role: 'system', content: `${roleMarker('agent')}\nbenchmark` },
    { role: 'user', content: `request ${i}` },
  ],
});

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

const percentile = (xs: number[], p: number): number => {
  const s = xs.slice().sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number;
};

async function main(): Promise<void> {
  const slow = await serverProcess(latencyMs);
  const fast = await serverProcess(0);
  const cacheDir = await mkdtemp(join(tmpdir(), 'coevolve-bench-cache-'));
  try {
    const endpoint = (url: string) => endpointSchema.parse({ name: 'bench', baseUrls: [url], maxConcurrency: calls, maxRetries: 0 });
    const model: ChatModel = createChatModel(endpoint(slow.baseUrl), role);
    // Warm up both clients with a full burst, so neither side of the comparison pays for opening connections.
    await Promise.all(Array.from({ length: calls }, (_, i) => model.complete(request(-1 - i))));
    await Promise.all(Array.from({ length: calls }, (_, i) => rawCall(slow.baseUrl, -1 - i)));

    const sequentialMs = await timed(async () => {
      for (let i = 0; i < calls; i++) await model.complete(request(i));
    });
    const concurrentMs = await timed(() => Promise.all(Array.from({ length: calls }, (_, i) => model.complete(request(1000 + i)))));
    const speedup = sequentialMs / concurrentMs;
    const rawSequentialMs = await timed(async () => {
      for (let i = 0; i < calls; i++) await rawCall(slow.baseUrl, i);
    });
    const rawConcurrentMs = await timed(() => Promise.all(Array.from({ length: calls }, (_, i) => rawCall(slow.baseUrl, 1000 + i))));
    const rawSpeedup = rawSequentialMs / rawConcurrentMs;

    // Cache hit vs a network call to a zero-latency server: the cache's own cost, against the adapter+HTTP floor.
    const recorder = createChatModel(endpoint(fast.baseUrl), role, { cache: createRequestCache(cacheDir, 'rw') });
    const network: number[] = [];
    for (let i = 0; i < 200; i++) network.push(await timed(() => recorder.complete(request(5000 + i))));
    const replayer = createChatModel(endpoint(fast.baseUrl), role, { cache: createRequestCache(cacheDir, 'replay') });
    const hits: number[] = [];
    for (let i = 0; i < 200; i++) hits.push(await timed(() => replayer.complete(request(5000 + i))));
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

    const result = {
      calls,
      serverLatencyMs: latencyMs,
      sequentialMs: round(sequentialMs),
      concurrentMs: round(concurrentMs),
      sequentialCallsPerSec: round((calls / sequentialMs) * 1000),
      concurrentCallsPerSec: round((calls / concurrentMs) * 1000),
      speedup: round(speedup),
      speedupTarget: 30,
      speedupMet: speedup >= 30,
      rawFetchSpeedup: round(rawSpeedup),
      adapterVsRawFetch: round(speedup / rawSpeedup),
      cacheHitMeanMs: round(mean(hits)),
      cacheHitP50Ms: round(percentile(hits, 50)),
      cacheHitP99Ms: round(percentile(hits, 99)),
      networkCallMeanMs: round(mean(network)),
      networkCallP50Ms: round(percentile(network, 50)),
      hitVsNetwork: round(mean(network) / mean(hits)),
      replayNetworkRequests: replayer.stats?.().networkRequests ?? -1,
      // Concurrency gains are bounded by free CPU (client and server both parse JSON per call): read them with these.
      cpus: availableParallelism(),
      loadAverage1m: round(loadavg()[0] ?? 0),
    };
    console.log(`model adapter benchmark (${calls} calls, server latency ${latencyMs} ms; ${result.cpus} CPUs, load average ${result.loadAverage1m})`);
    console.table({
      sequential: { ms: result.sequentialMs, 'calls/s': result.sequentialCallsPerSec },
      concurrent: { ms: result.concurrentMs, 'calls/s': result.concurrentCallsPerSec },
    });
    console.log(`throughput speedup: ${result.speedup}× (target ≥ 30×: ${result.speedupMet ? 'met' : 'NOT met'}); bare fetch on the same server: ${result.rawFetchSpeedup}× (adapter reaches ${Math.round(result.adapterVsRawFetch * 100)}% of it)`);
    console.table({
      'cache hit (replay)': { 'mean ms': result.cacheHitMeanMs, 'p50 ms': result.cacheHitP50Ms, 'p99 ms': result.cacheHitP99Ms },
      'network call (0 ms server)': { 'mean ms': result.networkCallMeanMs, 'p50 ms': result.networkCallP50Ms, 'p99 ms': round(percentile(network, 99)) },
    });
    console.log(`cache hit is ${result.hitVsNetwork}× faster than a loopback network call; replay sent ${result.replayNetworkRequests} requests`);
    console.log(JSON.stringify(result));
  } finally {
    slow.stop();
    fast.stop();
    await rm(cacheDir, { recursive: true, force: true });
  }
}

const round = (x: number): number => Math.round(x * 100) / 100;

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
