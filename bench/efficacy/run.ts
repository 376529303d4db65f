// The outside measurement of the co-evolution loop (issue 12). Prints a per-seed table, the means and a JSON line;
// never asserts. The rules are fixed here and in ARCHITECTURE.md ("Measurement rules") before any tuning:
//   - seeds 1, 2, 3, 4, 5 and 2026, the demo config (environments/demo.run.yaml), bubblewrap;
//   - each seed runs the demo (5 generations) for the 5-generation figures, read on its final archive with its final
//     agent, and the demo config with 10 generations for the agent's and the whole run's figures (two runs: an agent
//     promoted at the end of generation 4 gets its children in generation 4 of the longer run, so its generation 4 is
//     not the demo's end);
//   - `coevolve eval` plays n = 20 fresh rollouts per pair (ids checked disjoint from the run's); a pair is in band when
//     its point estimate is in [0.4, 0.6]; the archive may not be smaller than the version-1 demo's for that seed;
//   - agent gain = frozen test-set success after the last generation minus the run's starting agent's on the same
//     plays (heldOut.test.initial; a promotion in generation 0 is part of it; the test set decides nothing);
//   - "rising" difficulty: a generation's mean measured archive difficulty above the previous one's by more than its se,
//     counted over generations 0-4 (the demo's) and over the whole run, beside the agent's measured ability;
//   - user effect = parent minus child success of every evolved user of the final archive, same fresh ids (eval).
//   node --import=tsx bench/efficacy/run.ts [--seeds 1,2] [--generations 10] [--jobs 2] [--keep DIR] [--agent-only]
// --agent-only skips both evals (about half a seed's cost): the agent's figures come from the run's frozen test set,
// which eval does not touch; the archive and user columns are then left out. A later bench on the same --keep folder
// without it adds the evals.
// --jobs N plays N seeds at once (each seed's run and evals stay in order; a run is the same at any concurrency), and
// with --keep an interrupted bench picks up the runs and evals it finished (each seed's folder records the commit
// and load its run was made with).
import { execFileSync, spawn } from 'node:child_process';
import pLimit from 'p-limit';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { EvalResult, GenerationMetrics, PredictionCheck } from '../../src/core/metrics/metricsSchema.js';
import { agentGain, risingSteps } from '../../src/core/metrics/agentGain.js';
import { meanWithInterval } from '../../src/core/metrics/summaries.js';

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const seeds = (arg('--seeds') ?? '1,2,3,4,5,2026').split(',').map(Number);
const generations = Number(arg('--generations') ?? 10);
const jobs = Math.max(1, Number(arg('--jobs') ?? 1));
const shortAt = 4;
/** The demo's generations: its figures are read after generation `shortAt`, its last. */
const demoGenerations = shortAt + 1;
/** Final active archive of the version-1 demo (commit b8f2104, same seeds, bwrap): the size the archive must keep. */
const v1ArchiveSize: Record<number, number> = { 1: 34, 2: 35, 3: 32, 4: 35, 5: 33, 2026: 33 };
/** The version-1 archive size to hold against, over the seeds that have one (seeds beyond the six of record do not). */
function v1ArchiveMean(rows: { archive: number; v1Archive: number | null }[]): string {
  const known = rows.filter((r) => r.v1Archive !== null);
  if (known.length === 0) return 'version 1: not run on these seeds';
  const v1 = known.reduce((t, r) => t + r.v1Archive!, 0) / known.length;
  return `version 1: ${v1.toFixed(1)}${known.length < rows.length ? ` over the ${known.length} seeds it was run on` : ''}`;
}
const cli = resolve(process.env.COEVOLVE_BENCH_CLI ?? 'dist/cli.js');
const config = resolve('environments/demo.run.yaml');
const keep = arg('--keep');
const agentOnly = process.argv.includes('--agent-only');
const work = keep ? resolve(keep) : mkdtempSync(join(tmpdir(), 'coevolve-efficacy-'));
/** The commit the CLI was built from (the worktree's HEAD, `+dirty` with uncommitted changes); `?` outside git. */
const commit = ((): string => {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).trim() !== '';
    return process.env.COEVOLVE_BENCH_CLI ? `${head}? (COEVOLVE_BENCH_CLI=${process.env.COEVOLVE_BENCH_CLI})` : `${head}${dirty ? '+dirty' : ''}`;
  } catch {
    return '?';
  }
})();

/** CPU seconds (user + system) of a CLI call and everything it waited for (its bwrap sandboxes), from bash's `times`. */
interface CpuTime { user: number; system: number }

/** One CLI call; resolves with its stdout and CPU time, rejects with the end of its stderr. */
function run(args: string[]): Promise<string> {
  return runTimed(args).then((r) => r.out);
}

function runTimed(args: string[]): Promise<{ out: string; cpu: CpuTime | null; wallSec: number }> {
  const t0 = Date.now();
  return new Promise((resolveRun, reject) => {
    // bash's `times` prints the CPU time of the children it waited for: the CLI and every process it reaped.
    const script = '"$@"; s=$?; times >&2; exit $s';
    const child = spawn('bash', ['-c', script, 'coevolve', process.execPath, cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => (err = (err + b.toString('utf8')).slice(-3000)));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`coevolve ${args.join(' ')} failed (${code}):\n${err}`));
      resolveRun({ out: Buffer.concat(out).toString('utf8'), cpu: cpuOf(err), wallSec: (Date.now() - t0) / 1000 });
    });
  });
}

/** The children line of bash's `times` ("0m1.250s 0m0.340s"), the last of its two lines. */
function cpuOf(stderr: string): CpuTime | null {
  const lines = stderr.trim().split('\n').filter((l) => /^\d+m[\d.]+s \d+m[\d.]+s$/.test(l.trim()));
  const last = lines[lines.length - 1];
  if (!last) return null;
  const [u, s] = last.trim().split(' ').map((x) => {
    const m = /^(\d+)m([\d.]+)s$/.exec(x)!;
    return Number(m[1]) * 60 + Number(m[2]);
  }) as [number, number];
  return { user: u, system: s };
}

interface SeedFigures {
  seed: number;
  /** sd of the pairs' true success, estimated from eval: the observed sd less the binomial noise of n plays. */
  trueSpread: number;
  /** The in-band share another draw of 20 plays would read on average (eval's empirical-Bayes figure). */
  inBandExpected: number;
  /** Whether the run's fitted model and its pooled evidence foretold the fresh plays (eval's checks), else null. */
  modelCheck: PredictionCheck | null;
  evidenceCheck: PredictionCheck | null;
  archive: number;
  /** Null for a seed the version-1 demo was not run on (the audit ran the six seeds of record only). */
  v1Archive: number | null;
  inBand: number;
  meanAbs: number;
  loopInBand: number;
  difficulty: { mean: number; se: number }[];
  risingSteps: number;
  /** Rising steps over every generation of the run, and the steps counted. */
  risingRun: { rising: number; steps: number };
  /** Measured ability of the agent that played generation 0 and the last generation (logit scale). */
  ability: [number, number];
  heldOut: number[];
  initial: number;
  final: number;
  gain: number;
  promotions: number;
  worsePromotions: number;
  unmeasuredPromotions: number;
  userEffects: number[];
  /** Each evolved user of the gen-4 archive against its parent on fresh ids (eval), with its realism verdict. */
  users: { userId: string; parentId: string; plays: number; mean: number; ci: [number, number]; violations: string[] }[];
  realismOutside: number;
  inBandFinal: number;
  /** CPU seconds of the run (CLI + sandboxes) when this bench made it; null for a run an earlier bench made. */
  runCpuSec: number | null;
  runWallSec: number | null;
  /** The same for the demo's 5-generation run (null when kept from an earlier bench or not made). */
  demoCpuSec: number | null;
  demoWallSec: number | null;
  loadAtRun: number;
  /** The commit and load the run was made with (written beside it when made; null for runs from before). */
  madeWith: { commit: string; load: number; at: string } | null;
}

/** One run of the demo config for a seed, made (or, kept by an earlier bench, resumed) in `out`, with its report. */
async function seedRun(out: string, seed: number, gens: number): Promise<{ runDir: string; gens: GenerationMetrics[]; made: Awaited<ReturnType<typeof runTimed>> | null; loadAtRun: number; madeWithPath: string }> {
  const existing = existsSync(out) ? readdirSync(out).find((d) => d.startsWith('demo-')) : undefined;
  const loadAtRun = loadavg()[0]!;
  const madeWithPath = join(out, 'made-with.json');
  if (!existing) {
    mkdirSync(out, { recursive: true });
    writeFileSync(madeWithPath, JSON.stringify({ commit, load: loadAtRun, at: new Date().toISOString() }));
  }
  const made = existing ? null : await runTimed(['run', config, '--backend', 'bwrap', '--seed', String(seed), '--generations', String(gens), '--out', out]);
  const runDir = join(out, readdirSync(out).find((d) => d.startsWith('demo-'))!);
  // A kept run an earlier bench left unfinished is resumed (a no-op when it completed).
  if (existing) await run(['resume', runDir, '--backend', 'bwrap']);
  const report = JSON.parse(await run(['report', runDir, '--json'])) as { generations: GenerationMetrics[] };
  return { runDir, gens: report.generations, made, loadAtRun, madeWithPath };
}

async function seedFigures(seed: number): Promise<SeedFigures> {
  const out = join(work, `seed-${seed}`);
  // Under --agent-only with a longer run, the demo run is not needed: its figures are the archive's.
  const demo = agentOnly && generations > demoGenerations ? null : await seedRun(join(out, `g${demoGenerations}`), seed, demoGenerations);
  const long = generations > demoGenerations ? await seedRun(join(out, `g${generations}`), seed, generations) : demo!;
  const gens = long.gens;
  // Each eval's JSON is kept beside its run (in the run's g5 or g10 folder, never the seed's: a seed folder kept by a
  // bench from before the two runs holds another run's evals), so a bench started again with --keep does not play it again.
  const evalAt = async (runDir: string, label: string, extra: string[]): Promise<EvalResult> => {
    const cached = join(dirname(runDir), `eval-${label}.json`);
    if (existsSync(cached)) return JSON.parse(readFileSync(cached, 'utf8')) as EvalResult;
    const text = await run(['eval', runDir, '--backend', 'bwrap', '--n', '20', '--json', '--out', join(out, 'evals'), ...extra]);
    writeFileSync(cached, text);
    return JSON.parse(text) as EvalResult;
  };
  const none = { summary: { pairs: Number.NaN, inBandShare: Number.NaN, meanAbsDistance: Number.NaN } } as EvalResult;
  // The demo's final archive with its final agent (no agent is promoted after the last generation).
  const short = agentOnly || !demo ? none : await evalAt(demo.runDir, `g${shortAt}`, []);
  const final = agentOnly ? none : long === demo ? short : await evalAt(long.runDir, 'final', ['--no-user-effect']);
  const { made, loadAtRun, madeWithPath } = long;
  const demoGens = (demo?.gens ?? gens).slice(0, demoGenerations);
  const difficultyOf = (gs: GenerationMetrics[]) => gs.map((g) => ({ mean: g.measuredDifficulty.archive.mean, se: g.measuredDifficulty.archive.se }));
  const series = difficultyOf(gens);
  const difficulty = difficultyOf(demoGens);
  const heldOut = gens.map((g) => g.heldOut.test?.score.success ?? Number.NaN);
  const gain = agentGain(gens);
  const users = short.userEffect?.users ?? [];
  return {
    seed,
    archive: short.summary.pairs,
    trueSpread: short.summary.trueSpread ?? Number.NaN,
    inBandExpected: short.summary.inBandExpected ?? Number.NaN,
    modelCheck: short.summary.modelCheck ?? null,
    evidenceCheck: short.summary.evidenceCheck ?? null,
    v1Archive: v1ArchiveSize[seed] ?? null,
    inBand: short.summary.inBandShare,
    meanAbs: short.summary.meanAbsDistance,
    loopInBand: demoGens[shortAt]!.archiveBand.inBandShare,
    difficulty,
    risingSteps: risingSteps(difficulty).rising,
    risingRun: risingSteps(series),
    ability: [gens[0]!.measuredDifficulty.agent.ability, gens[gens.length - 1]!.measuredDifficulty.agent.ability],
    heldOut,
    initial: gain?.initial ?? Number.NaN,
    final: gain?.final ?? Number.NaN,
    gain: gain?.gain ?? Number.NaN,
    promotions: gain?.promotions ?? 0,
    worsePromotions: gain?.worse ?? 0,
    unmeasuredPromotions: gain?.unmeasured ?? 0,
    userEffects: users.map((u) => u.vsParent.mean),
    users: users.map((u) => ({ userId: u.userId, parentId: u.parentId, plays: u.plays, mean: u.vsParent.mean, ci: u.vsParent.ci, violations: u.realismViolations })),
    realismOutside: users.filter((u) => u.realismViolations.length > 0).length,
    inBandFinal: final.summary.inBandShare,
    runCpuSec: made?.cpu ? made.cpu.user + made.cpu.system : null,
    runWallSec: made?.wallSec ?? null,
    demoCpuSec: demo?.made?.cpu ? demo.made.cpu.user + demo.made.cpu.system : null,
    demoWallSec: demo?.made?.wallSec ?? null,
    loadAtRun,
    madeWith: existsSync(madeWithPath) ? (JSON.parse(readFileSync(madeWithPath, 'utf8')) as SeedFigures['madeWith']) : null,
  };
}

const pct = (x: number): string => `${(x * 100).toFixed(0)}%`;
const f2 = (x: number): string => (Number.isFinite(x) ? x.toFixed(2) : '—');
const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const signed = (x: number, digits: number): string => (Number.isFinite(x) ? `${x >= 0 ? '+' : ''}${x.toFixed(digits)}` : '—');

/** The agent's table: gain on the frozen test set, promotions, and the archive's measured difficulty over the run. */
function printAgentTable(rows: SeedFigures[]): void {
  console.log('');
  console.log('| seed | made with (load) | test set: initial → final (gain) | held-out each generation | promotions (sig. worse, unmeasured) | agent ability gen 0 → last | archive difficulty rising, whole run |');
  console.log('|---:|---|---|---|---:|---|---:|');
  for (const r of rows) {
    const made = r.madeWith ? `${r.madeWith.commit} (${r.madeWith.load.toFixed(1)})` : '?';
    console.log(`| ${r.seed} | ${made} | ${pct(r.initial)} → ${pct(r.final)} (${signed(r.gain * 100, 1)} pts) | ${r.heldOut.map(pct).join(' ')} | ${r.promotions} (${r.worsePromotions}, ${r.unmeasuredPromotions}) | ${f2(r.ability[0])} → ${f2(r.ability[1])} | ${r.risingRun.rising}/${r.risingRun.steps} |`);
  }
}

async function main(): Promise<void> {
  const limit = pLimit(jobs);
  // Rows in seed order whatever order the seeds finish in.
  const rows: SeedFigures[] = await Promise.all(seeds.map((seed) => limit(async () => {
    process.stderr.write(`seed ${seed}: ${generations} generations, then eval (load average ${loadavg()[0]!.toFixed(1)})\n`);
    const r = await seedFigures(seed);
    // Each seed's figures as soon as they exist, so a long bench shows what it has.
    process.stderr.write(`seed ${seed} done: ${JSON.stringify(r)}\n`);
    return r;
  })));

  console.log(`# bench:efficacy — demo config, seeds ${seeds.join(', ')}, ${generations} generations, ${jobs} at once, ${agentOnly ? 'agent only (no eval)' : 'eval n = 20 fresh plays per pair'} (load average ${loadavg().map((x) => x.toFixed(1)).join(' ')})`);
  if (agentOnly) return printAgentOnly(rows);
  console.log('');
  console.log('| seed | archive (v1) | in band by eval, gen 4 (another draw, expected) | mean abs(p - 0.5) | loop\'s own, gen 4 | measured difficulty gen 0 → 4 (rising steps) | held-out initial → final | promotions (sig. worse) | evolved users: mean effect (n, outside realism) | in band by eval, final |');
  console.log('|---:|---:|---:|---:|---:|---|---|---:|---|---:|');
  for (const r of rows) {
    const d = r.difficulty;
    console.log(`| ${r.seed} | ${r.archive} (${r.v1Archive ?? '—'})${r.v1Archive !== null && r.archive < r.v1Archive ? ' SHRANK' : ''} | ${pct(r.inBand)} (${pct(r.inBandExpected)}) | ${f2(r.meanAbs)} | ${pct(r.loopInBand)} | ${d.map((x) => f2(x.mean)).join(' → ')} (${r.risingSteps}/${d.length - 1}) | ${pct(r.initial)} → ${pct(r.final)} (${signed(r.gain * 100, 0)} pts) | ${r.promotions} (${r.worsePromotions}) | ${r.userEffects.length ? f2(mean(r.userEffects)) : '—'} (${r.userEffects.length}, ${r.realismOutside}) | ${pct(r.inBandFinal)} |`);
  }
  printAgentTable(rows);
  printUserTable(rows);
  const allEffects = rows.flatMap((r) => r.userEffects);
  const effect = allEffects.length ? meanWithInterval(allEffects) : null;
  console.log('');
  // The seeds' spread carries the eval's own binomial noise (about 8 points on one seed's 40 pairs at n = 20): the
  // interval says how far the mean could move on other fresh plays of the same archives.
  const band = meanWithInterval(rows.map((r) => r.inBand));
  const bandCi = band.n >= 2 ? ` [95 % t interval over seeds ${pct(band.ci[0])}–${pct(band.ci[1])}]` : '';
  console.log(`means: in band by eval ${pct(mean(rows.map((r) => r.inBand)))}${bandCi} (target >= 60 %, version 1: 30 % on the six seeds of record); another draw would read ${pct(mean(rows.map((r) => r.inBandExpected)))} on average (pairs shrunk to their archive's spread) · mean abs(p - 0.5) ${f2(mean(rows.map((r) => r.meanAbs)))} (version 1: 0.27) · archive ${mean(rows.map((r) => r.archive)).toFixed(1)} (${v1ArchiveMean(rows)}) · true spread of pairs' success ${f2(mean(rows.map((r) => r.trueSpread)))} (sd, eval's binomial noise removed; 60 % at n = 20 needs about 0.09 or less)`);
  console.log(predictionSummary(rows));
  console.log(`held-out agent success: initial ${pct(mean(rows.map((r) => r.initial)))}, final ${pct(mean(rows.map((r) => r.final)))}, final minus initial ${(mean(rows.map((r) => r.gain)) * 100).toFixed(1)} points on the seed mean (target >= +15); promoted agents significantly worse than their predecessor: ${rows.reduce((s, r) => s + r.worsePromotions, 0)} of ${rows.reduce((s, r) => s + r.promotions, 0)} (without a paired comparison: ${rows.reduce((s, r) => s + r.unmeasuredPromotions, 0)})`);
  console.log(`measured difficulty rising (gen mean above the previous by more than its se): gens 0-${shortAt} ${rows.reduce((s, r) => s + r.risingSteps, 0)} of ${rows.reduce((s, r) => s + r.difficulty.length - 1, 0)} steps; whole run ${rows.reduce((s, r) => s + r.risingRun.rising, 0)} of ${rows.reduce((s, r) => s + r.risingRun.steps, 0)} steps; agent ability ${f2(mean(rows.map((r) => r.ability[0])))} → ${f2(mean(rows.map((r) => r.ability[1])))} (seed mean, logit scale)`);
  console.log(effect ? `evolved users vs parent (parent - child success, fresh ids), pooled over the seeds' users: ${effect.mean.toFixed(3)} ${effect.n >= 2 ? `[${effect.ci[0].toFixed(3)}, ${effect.ci[1].toFixed(3)}]` : '(no interval from one user)'} over ${effect.n} users; outside realism bounds: ${rows.reduce((s, r) => s + r.realismOutside, 0)}` : 'evolved users: none in the final archives');
  const cpu = rows.filter((r) => r.runCpuSec !== null);
  console.log(cpu.length ? `run cost (CLI + its bwrap sandboxes, ${generations} generations): ${cpu.map((r) => `seed ${r.seed} ${r.runCpuSec!.toFixed(0)} s CPU, ${r.runWallSec!.toFixed(0)} s wall at load ${r.loadAtRun.toFixed(1)}`).join('; ')}` : 'run cost: every run was made by an earlier bench (--keep), not timed');
  const demoCpu = rows.filter((r) => r.demoCpuSec !== null && r.demoWallSec !== null);
  // Two seeds run at once (--jobs 2) share the 2 cores: the wall times are not the demo's alone; the CPU is.
  if (demoCpu.length && generations > demoGenerations) console.log(`demo cost (5 generations, ${jobs} at once): ${demoCpu.map((r) => `seed ${r.seed} ${r.demoCpuSec!.toFixed(0)} s CPU, ${r.demoWallSec!.toFixed(0)} s wall`).join('; ')} (the demo's budget: 2 min on 2 cores)`);
  console.log(JSON.stringify({ bench: 'efficacy', seeds, generations, rows, userEffect: effect, load: loadavg() }));
  if (!keep) rmSync(work, { recursive: true, force: true });
}

/** What the loop selected on against the fresh plays, seed mean: a rule whose inputs know nothing cannot select. */
function predictionSummary(rows: SeedFigures[]): string {
  const of = (what: string, checks: (PredictionCheck | null)[]): string => {
    const c = checks.filter((x): x is PredictionCheck => x !== null);
    if (c.length === 0) return `${what}: not in these evals`;
    const slopes = c.flatMap((x) => (x.slope === null ? [] : [x.slope]));
    return `${what} off by ${f2(mean(c.map((x) => x.rmsError)))} rms, slope ${slopes.length ? f2(mean(slopes)) : '—'}`;
  };
  return `did the run foresee the fresh plays (seed means; 1 = calibrated, 0 = no information; knowing only the mean is off by the true spread): ${of('fitted model', rows.map((r) => r.modelCheck))} · ${of('pooled evidence', rows.map((r) => r.evidenceCheck))}`;
}

/**
 * Every evolved user per seed: its effect against its parent (parent - child success on the same fresh ids) with the
 * 95 % t interval over its paired plays, its realism verdict, and the seed's mean over users (an interval needs two).
 */
function printUserTable(rows: SeedFigures[]): void {
  console.log('');
  console.log('| seed | evolved user (parent) | paired plays | effect vs parent [95 % CI] | realism |');
  console.log('|---:|---|---:|---|---|');
  for (const r of rows) {
    for (const u of r.users ?? []) console.log(`| ${r.seed} | ${u.userId} (${u.parentId}) | ${u.plays} | ${signed(u.mean, 3)} [${signed(u.ci[0], 3)}, ${signed(u.ci[1], 3)}] | ${u.violations.length ? u.violations.join('; ') : 'within'} |`);
    const m = meanWithInterval(r.userEffects);
    console.log(`| ${r.seed} | mean over ${m.n} user(s) | | ${m.n ? `${signed(m.mean, 3)} ${m.n >= 2 ? `[${signed(m.ci[0], 3)}, ${signed(m.ci[1], 3)}]` : '(no interval from one user)'}` : '—'} | |`);
  }
}

/** --agent-only: the agent's table and its means (no eval was played). */
function printAgentOnly(rows: SeedFigures[]): void {
  printAgentTable(rows);
  console.log('');
  console.log(`held-out agent success: initial ${pct(mean(rows.map((r) => r.initial)))}, final ${pct(mean(rows.map((r) => r.final)))}, final minus initial ${(mean(rows.map((r) => r.gain)) * 100).toFixed(1)} points on the seed mean (target >= +15); promoted agents significantly worse than their predecessor: ${rows.reduce((s, r) => s + r.worsePromotions, 0)} of ${rows.reduce((s, r) => s + r.promotions, 0)} (without a paired comparison: ${rows.reduce((s, r) => s + r.unmeasuredPromotions, 0)})`);
  console.log(`measured difficulty rising (gen mean above the previous by more than its se): gens 0-${shortAt} ${rows.reduce((s, r) => s + r.risingSteps, 0)} of ${rows.reduce((s, r) => s + r.difficulty.length - 1, 0)} steps; whole run ${rows.reduce((s, r) => s + r.risingRun.rising, 0)} of ${rows.reduce((s, r) => s + r.risingRun.steps, 0)} steps; agent ability ${f2(mean(rows.map((r) => r.ability[0])))} → ${f2(mean(rows.map((r) => r.ability[1])))} (seed mean, logit scale)`);
  const cpu = rows.filter((r) => r.runCpuSec !== null);
  console.log(cpu.length ? `run cost (CLI + its bwrap sandboxes, ${generations} generations): ${cpu.map((r) => `seed ${r.seed} ${r.runCpuSec!.toFixed(0)} s CPU, ${r.runWallSec!.toFixed(0)} s wall at load ${r.loadAtRun.toFixed(1)}`).join('; ')}` : 'run cost: every run was made by an earlier bench (--keep), not timed');
  console.log(JSON.stringify({ bench: 'efficacy', agentOnly: true, seeds, generations, rows, load: loadavg() }));
  if (!keep) rmSync(work, { recursive: true, force: true });
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exitCode = 1;
});
