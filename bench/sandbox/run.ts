// Sandbox benchmark: per backend cold start, warm acquire, exec p50/p95 and full round trip; the command channel
// against exec-per-command (the path before it, same container / same bwrap sandbox), raw dockerode and the
// `docker exec` CLI, interleaved sample by sample in the same run. Prints a table and JSON; asserts nothing.
//   node --import=tsx bench/sandbox/run.ts [--json-only]
import { spawn } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { Writable } from 'node:stream';
import type { Duplex } from 'node:stream';
import Docker from 'dockerode';
import type { SandboxBackend, SandboxRequest } from '../../src/core/ports/sandbox.js';
import { limitsSchema } from '../../src/core/spec/environment.js';
import { BwrapBackend } from '../../src/sandbox/bwrap/bwrapBackend.js';
import type { BwrapSandbox } from '../../src/sandbox/bwrap/bwrapBackend.js';
import { DockerBackend } from '../../src/sandbox/docker/dockerBackend.js';
import { WarmPool } from '../../src/sandbox/docker/warmPool.js';
import { ProcessBackend } from '../../src/sandbox/process/processBackend.js';

const labels = { 'coevolve.bench': '1' };
const request: SandboxRequest = { image: 'coevolve/busybox:latest', workdir: '/workspace', files: [], setup: [], env: {}, limits: limitsSchema.parse({}), labels };
const rounds = { start: 8, exec: 40, roundTrip: 8, warm: 10 };

type Stats = { n: number; p50: number; p95: number; mean: number };
function stats(samples: number[]): Stats {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number): number => s[Math.min(s.length - 1, Math.floor(q * s.length))] as number;
  return { n: s.length, p50: round(at(0.5)), p95: round(at(0.95)), mean: round(s.reduce((a, b) => a + b, 0) / s.length) };
}
const round = (x: number): number => Math.round(x * 100) / 100;

async function time(n: number, fn: () => Promise<unknown>, warmup = 2): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    out.push(performance.now() - t);
  }
  return out;
}

async function backendFigures(backend: SandboxBackend): Promise<Record<string, Stats>> {
  const cold = await time(rounds.start, async () => (await backend.start(request)).stop().catch(() => undefined), 1);
  const box = await backend.start(request);
  const exec = await time(rounds.exec, () => box.exec('true'));
  await box.stop();
  const trip = await time(rounds.roundTrip, async () => {
    const s = await backend.start(request);
    await s.exec('echo hi');
    await s.stop();
  }, 1);
  return { coldStart: stats(cold), exec: stats(exec), roundTrip: stats(trip) };
}

async function rawDockerodeExec(docker: Docker, container: Docker.Container): Promise<void> {
  const exec = await container.exec({ Cmd: ['sh', '-c', 'true'], AttachStdout: true, User: '65534:65534', AttachStderr: true });
  const stream = (await exec.start({})) as Duplex;
  const sink = (): Writable => new Writable({ write(_c, _e, done): void { done(); } });
  docker.modem.demuxStream(stream, sink(), sink());
  await new Promise<void>((resolve) => {
    stream.once('end', () => resolve());
    stream.once('close', () => resolve());
  });
  await exec.inspect();
}

function cliExec(id: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = spawn('docker', ['exec', '-u', '65534:65534', id, 'sh', '-c', 'true'], { stdio: 'ignore' });
    p.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`docker exec exited ${code}`))));
  });
}

async function main(): Promise<void> {
  const results: Record<string, Record<string, Stats>> = {};
  const load = loadavg()[0] ?? 0;
  const docker = new Docker();
  const dockerBackend = new DockerBackend({ labels });
  results.docker = await backendFigures(dockerBackend);

  // Warm pool: acquire when a warm sandbox is ready (the pool refills between samples, outside the timing).
  const pool = new WarmPool(new DockerBackend({ labels }), { size: 2, labels });
  const warm: number[] = [];
  for (let i = 0; i < rounds.warm + 1; i++) {
    await pool.prewarm(request);
    const t = performance.now();
    const s = await pool.start(request);
    if (i > 0) warm.push(performance.now() - t);
    await s.stop();
  }
  await pool.dispose();
  results.docker.warmAcquire = stats(warm);

  // Baselines in one container, interleaved with ours sample by sample so machine load hits all alike: the channel,
  // the exec-per-command path of the commit before the channel (unchanged code, same container), raw dockerode and the
  // `docker exec` CLI, each running the same shell command line (`sh -c true`) as the agent user.
  const base = await dockerBackend.launch(request, labels);
  const raw: number[] = [];
  const cli: number[] = [];
  const ours: number[] = [];
  const perCommand: number[] = [];
  const session: number[] = [];
  let servedByChannel = 0;
  const sample = async (into: number[], fn: () => Promise<unknown>): Promise<void> => {
    const t = performance.now();
    await fn();
    into.push(performance.now() - t);
  };
  for (let i = 0; i < rounds.exec + 2; i++) {
    const keep = i >= 2; // first two are warm-up
    await sample(keep ? raw : [], () => rawDockerodeExec(docker, base.container));
    await sample(keep ? ours : [], async () => {
      if ((await base.exec('true')).via === 'channel' && keep) servedByChannel++;
    });
    await sample(keep ? perCommand : [], () => base.execPerCommand('true'));
    await sample(keep ? session : [], () => base.exec('true', { shell: 'session' }));
    if (i % 2 === 0) await sample(keep ? cli : [], () => cliExec(base.id));
  }
  results.baseline = { rawDockerodeExec: stats(raw), dockerCliExec: stats(cli), dockerExecPerCommand: stats(perCommand) };
  results.docker.execInterleaved = stats(ours);
  results.docker.execSession = stats(session);
  await base.stop();
  await dockerBackend.dispose();

  const bwrapBackend = new BwrapBackend();
  results.bwrap = await backendFigures(bwrapBackend);
  const bbox = (await bwrapBackend.start(request)) as BwrapSandbox;
  // The per-command path needs host folders shared between its bwraps: a sandbox of its own, side by side.
  const perCommandBackend = new BwrapBackend({ channel: false });
  const pbox = (await perCommandBackend.start(request)) as BwrapSandbox;
  const bOurs: number[] = [];
  const bPer: number[] = [];
  const bSession: number[] = [];
  for (let i = 0; i < rounds.exec + 2; i++) {
    const keep = i >= 2;
    await sample(keep ? bOurs : [], async () => {
      if ((await bbox.exec('true')).via === 'channel' && keep) servedByChannel++;
    });
    await sample(keep ? bPer : [], () => pbox.execPerCommand('true'));
    await sample(keep ? bSession : [], () => bbox.exec('true', { shell: 'session' }));
  }
  results.bwrap.execInterleaved = stats(bOurs);
  results.bwrap.execSession = stats(bSession);
  results.baseline.bwrapPerCommand = stats(bPer);
  await bwrapBackend.dispose();
  await perCommandBackend.dispose();
  const proc = new ProcessBackend({ warn: () => undefined });
  results.process = await backendFigures(proc);
  await proc.dispose();
  const loadEnd = loadavg()[0] ?? 0;

  const p50 = (backend: string, measure: string): number => results[backend]?.[measure]?.p50 ?? Number.NaN;
  const ratios = {
    dockerChannelVsExecPerCommand: round(p50('docker', 'execInterleaved') / p50('baseline', 'dockerExecPerCommand')),
    dockerChannelVsRawDockerode: round(p50('docker', 'execInterleaved') / p50('baseline', 'rawDockerodeExec')),
    dockerChannelVsCli: round(p50('docker', 'execInterleaved') / p50('baseline', 'dockerCliExec')),
    bwrapChannelVsPerCommand: round(p50('bwrap', 'execInterleaved') / p50('baseline', 'bwrapPerCommand')),
  };
  const targets = {
    'every timed channel command was served by the channel': servedByChannel === 2 * rounds.exec,
    'docker channel p50 <= 0.1x exec-per-command': ratios.dockerChannelVsExecPerCommand <= 0.1,
    'docker channel p50 <= 0.1x raw dockerode exec': ratios.dockerChannelVsRawDockerode <= 0.1,
    'docker channel p50 <= 0.05x docker CLI': ratios.dockerChannelVsCli <= 0.05,
    'bwrap channel p50 <= 2 ms': p50('bwrap', 'execInterleaved') <= 2,
    'bwrap channel p50 <= 0.25x per-command bwrap': ratios.bwrapChannelVsPerCommand <= 0.25,
    'warm acquire p50 <= 10 ms': p50('docker', 'warmAcquire') <= 10,
  };

  if (!process.argv.includes('--json-only')) {
    const rows: string[][] = [['backend', 'measure', 'n', 'p50 ms', 'p95 ms', 'mean ms']];
    for (const [backend, figures] of Object.entries(results)) {
      for (const [measure, s] of Object.entries(figures)) rows.push([backend, measure, String(s.n), String(s.p50), String(s.p95), String(s.mean)]);
    }
    const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
    for (const r of rows) console.log(r.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '));
    console.log('');
    console.log(`load average (1 min): ${round(load)} at start, ${round(loadEnd)} at end, on ${cpus().length} cpus (figures scale with it; ratios much less)`);
    console.log(`ratios of p50: ${Object.entries(ratios).map(([k, v]) => `${k} = ${v}`).join(', ')}`);
    for (const [t, ok] of Object.entries(targets)) console.log(`${ok ? 'meets ' : 'MISSES'} ${t}`);
    console.log('');
  }
  console.log(JSON.stringify({ loadAverage1m: round(load), loadAverage1mEnd: round(loadEnd), cpus: cpus().length, results, ratios, targets }, null, 2));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
