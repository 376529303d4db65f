// Benchmarks of the engine and the store. Prints a table and a JSON line; never asserts on time.
//   node --import=tsx bench/run/run.ts [--skip-docker] [--isolation-only]
// 1. store load time of a 10k-rollout run (openRun) vs reading every rollout file (the naive baseline);
// 2. controller overhead per rollout: wall time not spent in sandbox or model calls, incl. store writes;
// 3. rollouts/s at concurrency 1 vs 8 on the docker backend;
// 4. the cost of the verifier's isolation per rollout (issue 11): the default fresh verification (agent processes
//    ended, workspace through the sanitising transfer into a new sandbox) against verifying in the agent's own
//    sandbox (in place, today's path before the trust rule), interleaved sample by sample, on docker and bwrap;
// 5. where one docker rollout's sandbox time goes, per phase and per Docker API call (bench/run/dockerPhases.ts);
// 6. the demo's wall time on bwrap and docker through the command channel and with one exec per command
//    (COEVOLVE_SANDBOX_CHANNEL=off, the path before it, only with --per-command-demos), in the same run (--skip-demo
//    leaves it out);
// 7. with --demo-cpu (only that part): the demo's wall and CPU (user + system of the whole tree) on bwrap for this
//    tree and for a baseline git ref (--baseline, default main) built in a temporary worktree, interleaved, beside a
//    fixed reference workload, and whether both gave the same report and rollouts (bench/run/demoCpu.ts);
// 8. with --play-cost [RUN_DIR] [--reps N] (only that part): one play's CPU phase by phase, generation 0 of a run
//    (by default a fresh 1-generation demo run) replayed one play at a time on bwrap (bench/run/playCost.ts).
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { createRng } from '../../src/core/ports/rng.js';
import type { SandboxBackend } from '../../src/core/ports/sandbox.js';
import { runVerifier, sandboxRequest } from '../../src/core/rollout/engine.js';
import type { EnvironmentSpec } from '../../src/core/spec/environment.js';
import { environmentSpecSchema } from '../../src/core/spec/environment.js';
import { builtinFamilies } from '../../src/builtin/families/registry.js';
import { BwrapBackend } from '../../src/sandbox/bwrap/bwrapBackend.js';
import { DockerBackend } from '../../src/sandbox/docker/dockerBackend.js';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import type { RolloutRecord } from '../../src/core/rollout/trajectory.js';
import { summarizeRollout } from '../../src/core/rollout/trajectory.js';
import { runConfigSchema } from '../../src/core/spec/run.js';
import { openRun } from '../../src/store/runReader.js';
import { RunWriter } from '../../src/store/runWriter.js';
import { WarmPool } from '../../src/sandbox/docker/warmPool.js';
import { dockerPhases } from './dockerPhases.js';
import { buildBaseline, demoRun, referenceWorkload, sameResults } from './demoCpu.js';
import type { DemoCpuRun } from './demoCpu.js';
import { playCost, playPhases } from './playCost.js';

const skipDocker = process.argv.includes('--skip-docker');
/** Only part 4 (the isolation cost), e.g. while the machine is busy with other runs. */
const isolationOnly = process.argv.includes('--isolation-only');
/** Only part 5 (the per-phase profile of a docker rollout). */
const phasesOnly = process.argv.includes('--phases-only');
const results: Record<string, number | string | object> = {};
const rows: [string, string, string][] = [];

function syntheticRollout(i: number, generation: number): RolloutRecord {
  const steps = Array.from({ length: 12 }, (_, s) => ({
    step_id: s + 1,
    timestamp: new Date(0).toISOString(),
    source: (s % 3 === 0 ? 'user' : 'agent') as 'user' | 'agent',
    message: `step ${s} of rollout ${i}`,
    ...(s % 3 !== 0 ? { tool_calls: [{ tool_call_id: `c${s}`, function_name: 'run_command', arguments: { command: 'ls -la' } }], observation: { results: [{ source_call_id: `c${s}`, content: 'exit code 0\nfile.txt' }] } } : {}),
  }));
  return {
    formatVersion: 1, id: `g${generation}-p${i % 50}-t${i}`, runId: 'bench', generation, pairId: `p${i % 50}`, envId: `e${i % 50}`, userId: 'u', agentId: 'a', trial: i, hint: false, seed: 1,
    status: 'terminated', startedAt: new Date(0).toISOString(), finishedAt: new Date(0).toISOString(), durationMs: 500,
    roles: { agent: 'a', user: 'u', judge: 'j' }, sandbox: { backend: 'docker', host: 'local', image: 'x' }, steps,
    rewards: { verifier: 1, userGoal: 1, satisfaction: 0.5, efficiency: 0.5, rubric: 0, total: 1 }, success: true, tags: [],
    usage: { promptTokens: 100, completionTokens: 50, cachedTokens: 0, costUsd: 0.001 }, timing: { sandboxMs: 400, modelMs: 10 },
  };
}

async function storeLoad(): Promise<void> {
  const out = mkdtempSync(join(tmpdir(), 'coevolve-bench-store-'));
  const config = runConfigSchema.parse({ apiVersion: 'coevolve/v1', kind: 'Run', name: 'bench', population: { builtinFamilies: ['log-triage'] } });
  const w = RunWriter.create(out, { runId: 'bench', name: 'bench', seed: 1, toolVersion: 'bench', startedAt: new Date().toISOString(), config, roles: {} });
  const n = 10_000, perGen = 1000;
  const tWrite = performance.now();
  for (let g = 0; g < n / perGen; g++) {
    await w.append({ type: 'generation.started', generation: g, agentId: 'a', pairs: [] });
    for (let i = 0; i < perGen; i++) {
      const r = syntheticRollout(g * perGen + i, g);
      await w.append({ type: 'rollout.started', generation: g, rolloutId: r.id, pairId: r.pairId });
      await w.writeRollout(r);
      await w.append({ type: 'rollout.finished', summary: summarizeRollout(r) });
    }
    await w.append({ type: 'generation.finished', generation: g });
  }
  const writeMs = performance.now() - tWrite;
  await w.close();
  const loads: number[] = [];
  for (let rep = 0; rep < 5; rep++) {
    const t = performance.now();
    const idx = openRun(w.runDir);
    loads.push(performance.now() - t);
    if (idx.rollouts.size !== n) throw new Error(`index has ${idx.rollouts.size} rollouts`);
  }
  const tNaive = performance.now();
  let count = 0;
  for (const g of readdirSync(join(w.runDir, 'rollouts'))) for (const f of readdirSync(join(w.runDir, 'rollouts', g))) {
    JSON.parse(readFileSync(join(w.runDir, 'rollouts', g, f), 'utf8'));
    count++;
  }
  const naiveMs = performance.now() - tNaive;
  const loadMs = median(loads);
  results.storeLoadMs10k = round(loadMs);
  results.storeNaiveMs10k = round(naiveMs);
  results.storeWriteMsPerRollout = round(writeMs / n, 3);
  rows.push(['store load, 10k rollouts (openRun, median of 5)', `${round(loadMs)} ms`, 'target ≤ 1000 ms']);
  rows.push(['  baseline: parse every rollout file', `${round(naiveMs)} ms (${count} files)`, `${round(naiveMs / loadMs, 1)}× slower than the index`]);
  rows.push(['store write per rollout (file + 2 fsync\'d events)', `${round(writeMs / n, 3)} ms`, '']);
  rmSync(out, { recursive: true, force: true });
}

function benchConfig(dir: string, warmPool: number): string {
  const p = join(dir, 'bench.run.yaml');
  writeFileSync(p, [
    'apiVersion: coevolve/v1', 'kind: Run', 'name: bench', 'seed: 3', 'generations: 1',
    'population:', '  builtinFamilies: [log-triage, csv-report, config-repair, file-organize]', '  pairsPerGeneration: 8', '  childrenPerGeneration: 0',
    'k: 4', 'hintPlays: 0', 'agent:', '  evolve: false', 'sandbox:', '  backend: docker', `  warmPool: ${warmPool}`,
  ].join('\n'));
  return p;
}

// The warm pool is sized to the concurrency, as a run would configure it: container start leaves the hot path.
function dockerRun(concurrency: number): { wallMs: number; rollouts: number; overheadShare: number } {
  const dir = mkdtempSync(join(tmpdir(), 'coevolve-bench-run-'));
  const cfg = benchConfig(dir, concurrency);
  const t = performance.now();
  const r = spawnSync(process.execPath, [resolve('dist/cli.js'), 'run', cfg, '--out', join(dir, 'runs'), '--concurrency', String(concurrency)], { encoding: 'utf8' });
  const wallMs = performance.now() - t;
  if (r.status !== 0) throw new Error(`run failed: ${r.stderr}`);
  const runDir = join(dir, 'runs', readdirSync(join(dir, 'runs'))[0]!);
  const metrics = JSON.parse(readFileSync(join(runDir, 'generations', 'g0000.json'), 'utf8'));
  let dur = 0, inside = 0, n = 0;
  for (const f of readdirSync(join(runDir, 'rollouts', 'g0000'))) {
    const rec = JSON.parse(readFileSync(join(runDir, 'rollouts', 'g0000', f), 'utf8')) as RolloutRecord;
    dur += rec.durationMs;
    inside += rec.timing.sandboxMs + rec.timing.modelMs;
    n++;
  }
  rmSync(dir, { recursive: true, force: true });
  // Overhead: engine time inside rollouts that is neither sandbox nor model, plus the store's share per rollout.
  const perRolloutOverhead = (dur - inside) / n + Number(results.storeWriteMsPerRollout ?? 0);
  return { wallMs: metrics.durationMs ?? wallMs, rollouts: n, overheadShare: perRolloutOverhead / (dur / n) };
}

/** One oracle rollout's sandbox work: start, oracle, verification (fresh or in place), stop. */
async function verifiedRollout(backend: SandboxBackend, env: EnvironmentSpec): Promise<number> {
  const t = performance.now();
  const request = sandboxRequest(env, { 'coevolve.bench': 'isolation' });
  const box = await backend.start(request);
  await box.exec(env.oracle.script, { as: 'setup', cwd: env.sandbox.workdir });
  const outcome = await runVerifier(box, env, backend, request);
  await box.stop();
  if (outcome.reward !== 1) throw new Error(`${env.id}: the oracle did not pass (${outcome.stdout})`);
  return performance.now() - t;
}

async function isolationCost(name: string, backend: SandboxBackend, samples: number): Promise<void> {
  const envs = builtinFamilies.map((f) => f.generate({ level: 3 }, createRng(`bench/isolation/${f.name}`)));
  const fresh: number[] = [];
  const inPlace: number[] = [];
  await verifiedRollout(backend, envs[0]!); // warm-up: first create of an image, page cache
  for (let i = 0; i < samples; i++) {
    const env = envs[i % envs.length]!;
    const local = environmentSpecSchema.parse({ ...env, verifier: { ...env.verifier, mode: 'in-place' } });
    // Alternate which goes first, so drift in machine load hits both sides alike.
    if (i % 2 === 0) { fresh.push(await verifiedRollout(backend, env)); inPlace.push(await verifiedRollout(backend, local)); }
    else { inPlace.push(await verifiedRollout(backend, local)); fresh.push(await verifiedRollout(backend, env)); }
  }
  await backend.dispose();
  const f = median(fresh), p = median(inPlace);
  results[`isolation_${name}_freshMs`] = round(f);
  results[`isolation_${name}_inPlaceMs`] = round(p);
  results[`isolation_${name}_ratio`] = round(f / p, 2);
  rows.push([`verified rollout, ${name}: fresh sandbox (default) vs in place`, `${round(f)} / ${round(p)} ms`, `${round(f / p, 2)}× (+${round(f - p)} ms per rollout, median of ${samples}, load ${loadavg()[0]!.toFixed(2)})`]);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}
/**
 * Wall time of the offline demo (`coevolve run environments/demo.run.yaml`, 5 generations) on one backend, through
 * the command channel or, with COEVOLVE_SANDBOX_CHANNEL=off, one exec / bwrap per command (the path before it).
 */
function demoWall(backend: 'docker' | 'bwrap', channel: boolean): number {
  const dir = mkdtempSync(join(tmpdir(), 'coevolve-bench-demo-'));
  const t = performance.now();
  const r = spawnSync(process.execPath, [resolve('dist/cli.js'), 'run', 'environments/demo.run.yaml', '--backend', backend, '--out', dir], {
    encoding: 'utf8',
    env: { ...process.env, COEVOLVE_SANDBOX_CHANNEL: channel ? 'on' : 'off' },
  });
  const ms = performance.now() - t;
  rmSync(dir, { recursive: true, force: true });
  if (r.status !== 0) throw new Error(`the demo on ${backend} failed: ${r.stderr.slice(-2000)}`);
  if (channel && /command channel is not available|could not start/.test(r.stderr)) throw new Error(`the demo on ${backend} fell back to exec: ${r.stderr.slice(-500)}`);
  return ms;
}

async function demoWalls(): Promise<void> {
  const startLoad = loadavg()[0] ?? 0;
  const wall: Record<string, number> = {};
  const loads: Record<string, string> = {};
  // The per-command path (the one before the channel) takes as long again on a busy machine: only when asked.
  const perCommand = process.argv.includes('--per-command-demos');
  for (const [backend, channel] of [['bwrap', true], ['docker', true], ['bwrap', false], ['docker', false]] as const) {
    if ((backend === 'docker' && skipDocker) || (!channel && !perCommand)) continue;
    const key = `${backend}${channel ? 'Channel' : 'PerCommand'}`;
    const before = load();
    wall[key] = demoWall(backend, channel);
    loads[key] = `load ${before} at start, ${load()} at end`;
  }
  for (const [k, ms] of Object.entries(wall)) {
    results[`demoWallSec_${k}`] = round(ms / 1000, 1);
    rows.push([`demo wall time, ${k.replace(/([A-Z])/g, ' $1').toLowerCase()}`, `${round(ms / 1000, 1)} s`, `${loads[k]}; target < 120 s on bwrap`]);
  }
  if (wall.dockerChannel && wall.bwrapChannel) {
    results.demoDockerOverBwrap = round(wall.dockerChannel / wall.bwrapChannel, 2);
    rows.push(['demo docker / demo bwrap (both channel, docker recycling containers)', `${round(wall.dockerChannel / wall.bwrapChannel, 2)}×`, `target ≤ 1.5×; load average ${round(startLoad, 2)} at start, ${round(loadavg()[0] ?? 0, 2)} at end`]);
  }
}

function round(x: number, d = 1): number {
  return Math.round(x * 10 ** d) / 10 ** d;
}

function load(): string {
  return loadavg()[0]!.toFixed(2);
}

/** One docker rollout's sandbox time per phase and per API call, through the warm pool a run uses. */
async function phaseProfile(samples: number): Promise<void> {
  const labels = { 'coevolve.bench': 'phases' };
  const p = await dockerPhases(samples, labels, (b) => new WarmPool(b, { size: 2, labels }));
  results.phasesPerRolloutMs = round(p.perRolloutMs);
  rows.push([`docker rollout, sandbox work only (warm pool 2, mean of ${samples})`, `${round(p.perRolloutMs)} ms`, `load ${load()}`]);
  for (const ph of p.phases) {
    results[`phase_${ph.name.replace(/\W+/g, '_')}Ms`] = round(ph.ms);
    rows.push([`  phase: ${ph.name}`, `${round(ph.ms)} ms`, `${round(ph.calls, 1)} per rollout`]);
  }
  for (const a of p.api.slice(0, 12)) rows.push([`    docker API, ${a.name}`, `${round(a.ms)} ms`, `${round(a.calls, 1)} calls per rollout`]);
}

function argValue(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

const cpuText = (r: { userSec?: number; sysSec?: number }): string => (r.userSec === undefined ? 'no cpuacct' : `${round(r.userSec + r.sysSec!)} s CPU (user ${round(r.userSec)} + sys ${round(r.sysSec!)})`);

/** Part 7: the demo's CPU and wall, this tree against a baseline ref, interleaved; a reference workload before each pair. */
async function demoCpu(): Promise<void> {
  const ref = argValue('--baseline', 'main');
  const generations = Number(argValue('--generations', '5'));
  const repeat = Number(argValue('--repeat', '1'));
  const baseline = buildBaseline(ref);
  try {
    const runs: DemoCpuRun[] = [];
    for (let i = 0; i < repeat; i++) {
      const refRun = referenceWorkload();
      rows.push([`reference workload (30 busybox pipelines in bwrap), pair ${i + 1}`, `${round(refRun.wallSec, 1)} s`, `${cpuText(refRun)}, load ${load()}`]);
      if (refRun.userSec !== undefined) results[`demoCpu_reference${i + 1}Sec`] = round(refRun.userSec + refRun.sysSec!, 2);
      // Alternate which goes first, so drift in the machine's load hits both sides alike.
      const pair = i % 2 === 0 ? [['baseline', baseline.cli], ['this tree', resolve('dist/cli.js')]] : [['this tree', resolve('dist/cli.js')], ['baseline', baseline.cli]];
      for (const [label, cli] of pair) runs.push(demoRun(`${label === 'baseline' ? `baseline ${ref}` : label} #${i + 1}`, cli!, generations));
    }
    for (const r of runs) {
      const key = `demoCpu_${r.label.startsWith('baseline') ? 'baseline' : 'tree'}${r.label.slice(-1)}`;
      results[`${key}WallSec`] = round(r.wallSec, 1);
      if (r.userSec !== undefined) results[`${key}CpuSec`] = round(r.userSec + r.sysSec!, 1);
      rows.push([`demo (${generations} generations, bwrap), ${r.label}`, `${round(r.wallSec, 1)} s wall`, `${cpuText(r)}; load ${r.loadStart} at start, ${r.loadEnd} at end`]);
    }
    const base = runs.filter((r) => r.label.startsWith('baseline')), tree = runs.filter((r) => !r.label.startsWith('baseline'));
    const cpu = (rs: DemoCpuRun[]): number => rs.reduce((a, r) => a + (r.userSec ?? 0) + (r.sysSec ?? 0), 0);
    if (cpu(base) > 0) {
      results.demoCpuRatio = round(cpu(tree) / cpu(base), 3);
      rows.push(['demo CPU, this tree / baseline', `${round(cpu(tree) / cpu(base), 3)}×`, `sum over ${repeat} interleaved pair(s)`]);
    }
    const check = sameResults(base[0]!, tree[0]!);
    results.demoCpuSameResults = String(check.same);
    rows.push(['same seed, same results (baseline vs this tree)', check.same ? 'yes' : 'NO', check.why]);
  } finally {
    baseline.remove();
  }
}

/** Part 8: where a play's CPU goes, phase by phase, replayed one play at a time. */
async function playCostPart(): Promise<void> {
  const given = argValue('--play-cost', '');
  let runDir = given.startsWith('--') ? '' : given;
  const reps = Number(argValue('--reps', '1'));
  const scratch = runDir ? undefined : mkdtempSync(join(tmpdir(), 'coevolve-bench-playcost-'));
  try {
    if (scratch) {
      const r = spawnSync(process.execPath, [resolve('dist/cli.js'), 'run', 'environments/demo.run.yaml', '--generations', '1', '--backend', 'bwrap', '--out', scratch], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`the demo run for --play-cost failed: ${r.stderr.slice(-500)}`);
      runDir = join(scratch, readdirSync(scratch)[0]!);
    }
    const loadStart = load();
    const cost = await playCost(runDir, reps);
    const line = (ms: Record<string, number>): string => playPhases.map((p) => `${p} ${ms[p]}`).join(', ');
    const sum = playPhases.filter((p) => p !== 'verifierScript').reduce((a, p) => a + cost.msPerPlay[p], 0);
    rows.push([`CPU ms per play (${cost.plays} plays, ${cost.commandsPerPlay} agent commands each)`, `${Math.round(sum)} ms`, `${line(cost.msPerPlay)} (verifierScript: the verifier's script alone, once more, not in the sum); load ${loadStart} at start, ${load()} at end`]);
    for (const [family, f] of Object.entries(cost.perFamily)) rows.push([`  ${family} (${f.plays} plays)`, '', line(f.msPerPlay)]);
    rows.push(['  floor: a bare sandbox start and stop', `${cost.bareSandboxMs} ms`, 'CPU, mean of 50']);
    rows.push(['  floor: `true` through the channel', `${cost.bareCommandMs} ms`, 'CPU, mean of 200, one sandbox']);
    results.playCost = cost;
  } finally {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  if (process.argv.includes('--play-cost')) {
    await playCostPart();
    return print();
  }
  if (process.argv.includes('--demo-cpu')) {
    await demoCpu();
    return print();
  }
  if (phasesOnly) {
    await phaseProfile(8);
    return print();
  }
  if (!isolationOnly) await storeLoad();
  if (!skipDocker && !isolationOnly) await phaseProfile(8);
  if (!skipDocker && !isolationOnly) {
    const loadC = load();
    const c1 = dockerRun(1);
    const c8 = dockerRun(8);
    const rps1 = c1.rollouts / (c1.wallMs / 1000), rps8 = c8.rollouts / (c8.wallMs / 1000);
    results.rolloutsPerSecC1 = round(rps1, 2);
    results.rolloutsPerSecC8 = round(rps8, 2);
    results.concurrencySpeedup = round(rps8 / rps1, 2);
    results.controllerOverheadPct = round(100 * c1.overheadShare, 2);
    rows.push(['controller overhead per rollout (concurrency 1)', `${round(100 * c1.overheadShare, 2)} %`, 'target ≤ 2 %']);
    rows.push(['rollouts/s, docker, concurrency 1', `${round(rps1, 2)}`, `${c1.rollouts} rollouts`]);
    rows.push(['rollouts/s, docker, concurrency 8', `${round(rps8, 2)}`, `${round(rps8 / rps1, 2)}× concurrency 1 (target ≥ 4×; load ${loadC} at start, ${load()} at end)`]);
  }
  if (!isolationOnly && !process.argv.includes('--skip-demo')) await demoWalls();
  if (process.argv.includes('--skip-isolation')) return print();
  await isolationCost('bwrap', new BwrapBackend(), 16);
  if (!skipDocker) await isolationCost('docker', new DockerBackend({ labels: { 'coevolve.bench': 'isolation' } }), 16);
  print();
}

function print(): void {
  const w = Math.max(...rows.map((r) => r[0].length));
  console.log('\nbench/run');
  for (const [a, b, c] of rows) console.log(`  ${a.padEnd(w)}  ${b.padStart(22)}  ${c}`);
  console.log(JSON.stringify({ bench: 'run', ...results }));
}

void main();
