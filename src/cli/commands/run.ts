import { randomUUID } from 'node:crypto';
import { dirname, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { runCoevolution, type RunOutcome } from '../../core/evolution/controller.js';
import { systemClock } from '../../core/ports/clock.js';
import { loadRunConfig, SpecError } from '../../core/spec/load.js';
import { endpointSchema, llmRoleSchema, type RunConfig } from '../../core/spec/run.js';
import { toolVersion } from '../../core/version.js';
import { loadRunHistory } from '../../store/runHistory.js';
import { repairRunIndex } from '../../store/repair.js';
import { formatRunProblem, openRun, readManifest, type RunProblem } from '../../store/runReader.js';
import { RunWriter } from '../../store/runWriter.js';
import { UserError } from '../errors.js';
import { checkRunDirArg, readSpecArg } from '../fileArgs.js';
import { warnOncePerRun } from '../run/warnOnce.js';
import { composeRoles, type CacheMode } from '../run/composeRoles.js';
import { loadPopulation } from '../run/population.js';
import { createProgressReporter } from '../run/progress.js';
import { buildReport, formatReportMarkdown } from '../run/report.js';
import { selectBackend, type BackendChoice } from '../run/selectBackend.js';
import { reapStale, type ReapReport } from '../../sandbox/reaper.js';
import { processTrainerHook } from '../run/trainerHook.js';

interface RunFlags {
  out?: string;
  seed?: string;
  llm?: string;
  model?: string;
  cache?: CacheMode;
  cacheDir?: string;
  backend?: RunConfig['sandbox']['backend'];
  concurrency?: string;
  generations?: string;
  fallbackProcess?: boolean;
  json?: boolean;
}

/** The commands that start, continue and report a run. */
export function registerRunCommands(program: Command): void {
  registerRun(program);
  registerResume(program);
  registerReport(program);
}

/** `coevolve run <run.yaml>`: a new run directory under --out (or the config's output), then the run. */
function registerRun(program: Command): void {
  program
    .command('run')
    .description('Run a co-evolution from a *.run.yaml (built-in roles need no model and no key).')
    .argument('<run.yaml>', 'run config')
    .option('--out <dir>', 'folder for the run directory (default: the config\'s `output`, relative to the current folder)')
    .option('--seed <n>', 'override the seed')
    .option('--llm <url>', 'put every role on this OpenAI-compatible endpoint (e.g. http://127.0.0.1:8000/v1)')
    .option('--model <name>', 'model name for --llm')
    .option('--cache <mode>', 'request cache: off, rw or replay (replay makes no network call and fails on a miss)', 'rw')
    .option('--cache-dir <dir>', 'request cache folder (default: .coevolve/cache in the current folder)')
    .option('--backend <name>', 'sandbox backend: auto, docker, bwrap or process (unsandboxed)')
    .option('--concurrency <n>', 'rollouts at once')
    .option('--generations <n>', 'override the number of generations')
    .option('--fallback-process', 'with backend auto: use the unsandboxed process backend when neither Docker nor bubblewrap is available')
    .action(async (file: string, flags: RunFlags) => {
      const configPath = resolve(file);
      const config = applyOverrides(readRunConfig(configPath), flags);
      const outputDir = resolve(flags.out ?? config.output);
      const runId = randomUUID().slice(0, 8);
      const seeds = await loadPopulation(config, dirname(configPath));
      const cast = composeRoles(config, { cacheMode: flags.cache ?? 'rw', cacheDir: resolve(flags.cacheDir ?? '.coevolve/cache'), families: seeds.environments.map((e) => e.family) });
      const writer = RunWriter.create(outputDir, {
        runId,
        name: config.name,
        seed: config.seed,
        toolVersion,
        startedAt: new Date().toISOString(),
        config,
        configPath,
        roles: cast.labels,
      });
      await execute({ writer, config, seeds, cast }, flags);
    });
}

/** `coevolve resume <runDir>`: repairs the run's index, reloads its history and goes on from where it stopped. */
function registerResume(program: Command): void {
  program
    .command('resume')
    .description('Continue a run that was stopped or killed; finished rollouts are kept, unfinished ones replayed.')
    .argument('<runDir>', 'run directory')
    .option('--cache <mode>', 'request cache: off, rw or replay', 'rw')
    .option('--cache-dir <dir>', 'request cache folder (default: .coevolve/cache in the current folder)')
    .option('--backend <name>', 'sandbox backend override')
    .option('--fallback-process', 'with backend auto: allow the unsandboxed process backend')
    .action(async (dir: string, flags: RunFlags) => {
      const runDir = resolve(dir);
      checkRunDirArg(runDir);
      const manifest = readManifest(runDir);
      const state = openRun(runDir);
      if (state.status === 'running') throw new UserError(`${dir} is still running (its lock names a live process); stop it first`);
      if (state.status === 'completed') {
        process.stdout.write(`${dir} already completed all ${manifest.config.generations} generations; nothing to resume\n`);
        return;
      }
      const config = applyOverrides(manifest.config, { ...flags, concurrency: undefined, generations: undefined, seed: undefined });
      const seeds = await loadPopulation(config, manifest.configPath ? dirname(manifest.configPath) : process.cwd());
      const cast = composeRoles(config, { cacheMode: flags.cache ?? 'rw', cacheDir: resolve(flags.cacheDir ?? '.coevolve/cache'), families: seeds.environments.map((e) => e.family) });
      const writer = RunWriter.reopen(runDir);
      const warn = (p: RunProblem): void => void process.stderr.write(`warning: ${formatRunProblem(p)}\n`);
      let history: ReturnType<typeof loadRunHistory>;
      try {
        // Damaged lines and files are said first; rollouts whose file is intact keep it even if their event was lost.
        (await repairRunIndex(writer)).forEach(warn);
        history = loadRunHistory(runDir, warn);
      } catch (err) {
        await writer.close();
        throw err;
      }
      await execute({ writer, config, seeds, cast, history }, flags);
    });
}

/** `coevolve report <runDir>`: the per-generation metrics table (or JSON). */
function registerReport(program: Command): void {
  program
    .command('report')
    .description('Per-generation metrics of a run: a markdown table, or JSON with --json.')
    .argument('<runDir>', 'run directory')
    .option('--json', 'print JSON ({ run, generations: [...] })')
    .action((dir: string, flags: { json?: boolean }) => {
      checkRunDirArg(resolve(dir));
      const report = buildReport(resolve(dir));
      process.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : formatReportMarkdown(report));
    });
}

/** What `run` and `resume` have set up before playing: the run's writer, its config, seeds and roles, and on resume its history. */
interface RunSetup {
  writer: RunWriter;
  config: RunConfig;
  seeds: Awaited<ReturnType<typeof loadPopulation>>;
  cast: ReturnType<typeof composeRoles>;
  history?: ReturnType<typeof loadRunHistory>;
}

/** Plays the run on the chosen sandbox backend, saying what it does, and ends with the report and the next step. */
async function execute(setup: RunSetup, flags: RunFlags): Promise<void> {
  const { writer, config, seeds, cast, history } = setup;
  const images = [...seeds.environments.map((e) => e.sandbox.image)];
  const warnings = warnOncePerRun((line) => process.stderr.write(`${line}\n`));
  const choice = await selectBackend(config.sandbox, images, {
    allowProcessFallback: flags.fallbackProcess ?? false,
    labels: { 'coevolve.run': writer.manifest.runId },
    warn: warnings.warn,
  });
  // Whatever a killed run left behind (containers, volumes, folders, cgroups) goes first.
  const reaped = await reapStale({ hosts: config.sandbox.hosts.map((h) => ({ url: h.url, ...(h.tlsDir ? { tlsDir: h.tlsDir } : {}) })) }).catch(() => undefined);
  const rel = relative(process.cwd(), writer.runDir) || '.';
  printRunStart({ writer, config, cast, choice, reaped, rel, resuming: history !== undefined });
  const outcome = await playRun(setup, choice);
  const unsandboxed = warnings.summary();
  if (unsandboxed) process.stderr.write(`${unsandboxed}\n`);
  process.stdout.write(`\n${formatReportMarkdown(buildReport(writer.runDir))}`);
  process.stdout.write(`\n${finishedLines(outcome.status, rel).join('\n')}\n`);
  if (outcome.status === 'stopped') process.exitCode = 130;
}

/** The run's first lines: which run, where it is written, its sandbox and roles, leftovers reaped, and a warning when unsandboxed. */
function printRunStart(s: { writer: RunWriter; config: RunConfig; cast: ReturnType<typeof composeRoles>; choice: BackendChoice; reaped: ReapReport | undefined; rel: string; resuming: boolean }): void {
  const { choice, reaped } = s;
  process.stderr.write(`coevolve ${toolVersion}: ${s.resuming ? 'resuming' : 'starting'} run ${s.writer.manifest.runId} (${s.config.name}) → ${s.rel}\n`);
  process.stderr.write(`  sandbox: ${choice.name} (${choice.reason})\n  roles: ${Object.entries(s.cast.labels).map(([k, v]) => `${k} = ${v}`).join('; ')}\n`);
  if (reaped && reaped.containers + reaped.volumes + reaped.folders > 0) {
    process.stderr.write(`  reaped leftovers of dead runs: ${reaped.containers} containers, ${reaped.volumes} volumes, ${reaped.folders} folders\n`);
  }
  if (choice.name === 'process') process.stderr.write('  WARNING: commands run UNSANDBOXED on this machine (process backend).\n');
}

/**
 * The co-evolution itself, with live progress and Ctrl-C handling; a failure is recorded in the run before it is
 * thrown, and the backend and the writer are closed whatever happens.
 */
async function playRun(setup: RunSetup, choice: BackendChoice): Promise<RunOutcome> {
  const { writer, config, seeds, cast, history } = setup;
  const interrupt = stopOnInterrupt();
  const progress = createProgressReporter();
  try {
    return await runCoevolution({
      config,
      recorder: writer,
      backend: choice.backend,
      roles: cast.roles,
      seeds,
      ...(history ? { history } : {}),
      hook: processTrainerHook,
      ...(cast.switchAgentModel ? { switchAgentModel: cast.switchAgentModel } : {}),
      clock: systemClock,
      signal: interrupt.signal,
      onProgress: progress.onProgress,
    });
  } catch (err) {
    await writer.append({ type: 'run.finished', status: 'failed', message: err instanceof Error ? err.message : String(err) }).catch(() => undefined);
    throw err;
  } finally {
    progress.stop();
    interrupt.release();
    await choice.backend.dispose().catch(() => undefined);
    await writer.close();
  }
}

/** The first Ctrl-C (or SIGTERM) stops the run cleanly through the returned signal; a second one quits at once. */
function stopOnInterrupt(): { signal: AbortSignal; release: () => void } {
  const abort = new AbortController();
  let interrupts = 0;
  const onSigint = (): void => {
    interrupts++;
    if (interrupts === 1) {
      process.stderr.write('\nstopping: finishing cleanly (sandboxes are removed; `coevolve resume` continues). Ctrl-C again to quit now.\n');
      abort.abort(new Error('stopped by the user'));
    } else {
      process.exit(130);
    }
  };
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigint);
  return {
    signal: abort.signal,
    release: () => {
      process.off('SIGINT', onSigint);
      process.off('SIGTERM', onSigint);
    },
  };
}

/** What happened and what to do next, as the last lines of a run. */
export function finishedLines(status: RunOutcome['status'], rel: string): string[] {
  if (status !== 'completed') return [`run stopped: ${rel}`, `  next: continue it with \`coevolve resume ${rel}\``];
  return [
    `run finished: ${rel}`,
    `  next: look at it in VS Code (Coevolve: Open Run Dashboard), or \`coevolve report ${rel}\``,
    `        accept the rollouts you want (\`coevolve curate accept ${rel} <rolloutId>\`), then \`coevolve export ${rel} --format chat-jsonl --out dataset/\``,
  ];
}

function readRunConfig(path: string): RunConfig {
  const text = readSpecArg(path, 'Run', 'coevolve run');
  try {
    return loadRunConfig(text, relative(process.cwd(), path) || path);
  } catch (err) {
    if (err instanceof SpecError) throw new UserError(err.message);
    throw err;
  }
}

function applyOverrides(config: RunConfig, flags: RunFlags): RunConfig {
  const out: RunConfig = structuredClone(config);
  const int = (v: string, what: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new UserError(`${what} must be a non-negative integer, got "${v}"`);
    return n;
  };
  if (flags.seed !== undefined) out.seed = int(flags.seed, '--seed');
  if (flags.concurrency !== undefined) out.concurrency = Math.max(1, int(flags.concurrency, '--concurrency'));
  if (flags.generations !== undefined) out.generations = Math.max(1, int(flags.generations, '--generations'));
  if (flags.backend !== undefined) {
    if (!['auto', 'docker', 'bwrap', 'process'].includes(flags.backend)) throw new UserError(`--backend must be auto, docker, bwrap or process, got "${flags.backend}"`);
    out.sandbox.backend = flags.backend;
  }
  if (flags.cache !== undefined && !['off', 'rw', 'replay'].includes(flags.cache)) throw new UserError(`--cache must be off, rw or replay, got "${flags.cache}"`);
  if (flags.llm !== undefined) {
    if (!flags.model) throw new UserError('--llm needs --model NAME (the model the endpoint serves)');
    const endpoint = endpointSchema.safeParse({ name: 'cli', baseUrls: [flags.llm] });
    if (!endpoint.success) throw new UserError(`--llm must be a URL such as http://127.0.0.1:8000/v1, got "${flags.llm}"`);
    out.endpoints = [...out.endpoints.filter((e) => e.name !== 'cli'), endpoint.data];
    // The schema's defaults: no max_tokens (a reasoning model spends a fixed budget thinking), a long timeout.
    const role = llmRoleSchema.parse({ kind: 'llm', endpoint: 'cli', model: flags.model });
    out.roles = { agent: role, user: role, designer: role, judge: role };
  }
  return out;
}
