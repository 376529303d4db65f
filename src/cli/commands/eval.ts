import { randomUUID } from 'node:crypto';
import { relative, resolve } from 'node:path';
import type { Command } from 'commander';
import type { EvalResult } from '../../core/metrics/metricsSchema.js';
import { minEvalPlays } from '../../core/metrics/evalResult.js';
import { llmRoleSchema, type RunConfig } from '../../core/spec/run.js';
import { toolVersion } from '../../core/version.js';
import { RunWriter } from '../../store/runWriter.js';
import { UserError } from '../errors.js';
import { isRunDir, runSource, specSource, type EvalSource } from '../eval/evalSource.js';
import { playEval } from '../eval/playEval.js';
import { composeRoles, type CacheMode } from '../run/composeRoles.js';
import { selectBackend } from '../run/selectBackend.js';

interface EvalFlags {
  generation?: string;
  agent?: string;
  users?: string[];
  n: string;
  seed?: string;
  json?: boolean;
  llm?: string;
  model?: string;
  out?: string;
  backend?: RunConfig['sandbox']['backend'];
  fallbackProcess?: boolean;
  concurrency?: string;
  userEffect: boolean;
  cache?: CacheMode;
  cacheDir?: string;
}

export function registerEvalCommand(program: Command): void {
  program
    .command('eval')
    .description('Play pairs n times on fresh rollout ids: per-pair success with 95 % intervals, the share in band, measured difficulty. Stored like a run.')
    .argument('<sources...>', 'a run directory (its final active archive), or environment spec files or folders')
    .option('--generation <g>', 'evaluate the archive as it was after generation g (default: the last)')
    .option('--agent <file|gen>', 'an agent spec file, or a generation number of the run (default: the run\'s final agent, or default genes)')
    .option('--users <paths...>', 'user spec files or folders to pair with spec environments (default: the built-in seed users)')
    .option('--n <n>', `plays per pair (at least ${minEvalPlays})`, String(minEvalPlays))
    .option('--seed <s>', 'seed of the eval\'s rollouts (default: the run\'s seed, on ids no run uses)')
    .option('--llm <url>', 'benchmark a model: play the agent role on this OpenAI-compatible endpoint')
    .option('--model <name>', 'model name for --llm')
    .option('--out <dir>', 'folder the eval directory is written to (default: runs)')
    .option('--backend <name>', 'sandbox backend: auto, docker, bwrap or process (unsandboxed)')
    .option('--fallback-process', 'with backend auto: use the unsandboxed process backend when nothing else is available')
    .option('--concurrency <n>', 'rollouts at once')
    .option('--no-user-effect', 'skip the evolved users against their parents (run sources)')
    .option('--cache <mode>', 'request cache for --llm: off, rw or replay', 'rw')
    .option('--cache-dir <dir>', 'request cache folder (default: .coevolve/cache)')
    .option('--json', 'print the result as JSON (schema: environments/schemas/eval-result.schema.json)')
    .action(async (sources: string[], flags: EvalFlags) => {
      const source = loadSource(sources, flags);
      const seed = flags.seed !== undefined ? nonNegative(flags.seed, '--seed') : source.config.seed;
      const config = withOverrides(source.config, flags);
      const cast = composeRoles(config, { cacheMode: flags.cache ?? 'rw', cacheDir: resolve(flags.cacheDir ?? '.coevolve/cache') });
      const runId = randomUUID().slice(0, 8);
      const writer = RunWriter.create(resolve(flags.out ?? 'runs'), {
        runId, name: `eval-${source.name}`, seed, toolVersion, startedAt: new Date().toISOString(), config, roles: cast.labels, kind: 'eval',
        ...(source.runDir ? { configPath: source.runDir } : {}),
      });
      const choice = await selectBackend(config.sandbox, [...new Set(source.pairs.map((p) => p.env.sandbox.image))], {
        allowProcessFallback: flags.fallbackProcess ?? false,
        labels: { 'coevolve.run': runId },
        warn: (m) => process.stderr.write(`warning: ${m}\n`),
      });
      process.stderr.write(`coevolve eval: ${source.pairs.length} pairs × ${flags.n} plays, agent ${source.agent.id} (${source.agentFrom}), sandbox ${choice.name}\n`);
      await writer.append({ type: 'run.started', runId });
      let result: EvalResult;
      try {
        result = await playEval(source, writer, choice.backend, cast.roles, {
          n: nonNegative(flags.n, '--n'), seed, concurrency: config.concurrency, userEffect: flags.userEffect, agentRole: cast.labels.agent ?? 'agent',
        });
        await writer.writeArtifact('eval.json', `${JSON.stringify(result, null, 2)}\n`);
        await writer.append({ type: 'generation.finished', generation: 0 });
        await writer.append({ type: 'run.finished', status: 'completed' });
      } catch (err) {
        await writer.append({ type: 'run.finished', status: 'failed', message: err instanceof Error ? err.message : String(err) }).catch(() => undefined);
        throw err;
      } finally {
        await choice.backend.dispose().catch(() => undefined);
        await writer.close();
      }
      process.stdout.write(flags.json ? `${JSON.stringify({ dir: writer.runDir, ...result }, null, 2)}\n` : formatEval(result, relative(process.cwd(), writer.runDir) || '.'));
    });
}

function loadSource(sources: string[], flags: EvalFlags): EvalSource {
  const first = resolve(sources[0]!);
  if (sources.length === 1 && isRunDir(first)) return runSource(first, flags.agent, flags.generation === undefined ? undefined : nonNegative(flags.generation, '--generation'));
  if (sources.some((s) => isRunDir(resolve(s)))) throw new UserError('give one run directory, or environment specs, not both');
  return specSource(sources, flags.users, flags.agent);
}

function withOverrides(config: RunConfig, flags: EvalFlags): RunConfig {
  const out = structuredClone(config);
  if (flags.concurrency !== undefined) out.concurrency = Math.max(1, nonNegative(flags.concurrency, '--concurrency'));
  if (flags.backend !== undefined) {
    if (!['auto', 'docker', 'bwrap', 'process'].includes(flags.backend)) throw new UserError(`--backend must be auto, docker, bwrap or process, got "${flags.backend}"`);
    out.sandbox.backend = flags.backend;
  }
  if (flags.llm !== undefined) {
    if (!flags.model) throw new UserError('--llm needs --model NAME (the model the endpoint serves)');
    out.endpoints = [...out.endpoints.filter((e) => e.name !== 'cli'), { name: 'cli', baseUrls: [flags.llm], maxConcurrency: 8, timeoutMs: 120_000, maxRetries: 4, prices: {} }];
    out.roles = { ...out.roles, agent: llmRoleSchema.parse({ kind: 'llm', endpoint: 'cli', model: flags.model }) };
  }
  return out;
}

function nonNegative(v: string, what: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new UserError(`${what} must be a non-negative integer, got "${v}"`);
  return n;
}

const pct = (x: number): string => `${(x * 100).toFixed(0)}%`;

/** The archive in one line: the share in band with its noise and what another draw would read, spread, difficulty. */
export function evalSummaryLine(r: EvalResult): string {
  const s = r.summary;
  const difficulty = s.runScaleDifficulty ?? s.difficulty;
  const parts = [`in band: ${pct(s.inBandShare)} of ${s.pairs} pairs${s.inBandRedrawSd !== undefined ? ` (sd ${Math.round(s.inBandRedrawSd * 100)} points over another draw of ${r.n} plays each)` : ''}`];
  if (typeof s.inBandExpected === 'number') parts.push(`another draw would read ${pct(s.inBandExpected)} on average (pairs shrunk to the archive's spread)`);
  if (typeof s.trueSpread === 'number') parts.push(`true success spreads ${s.trueSpread.toFixed(2)} (sd, binomial noise removed)`);
  parts.push(`mean |p − 0.5| ${s.meanAbsDistance.toFixed(2)}`, `mean success ${pct(s.meanSuccess)}`);
  parts.push(`difficulty ${difficulty.mean.toFixed(2)} ± ${difficulty.sd.toFixed(2)}${s.runScaleDifficulty ? ' (run scale)' : ' (relative to the agent)'}`);
  return parts.join(' · ');
}

/**
 * Whether what the run selected on foretold the fresh plays: a selection rule whose inputs carry no information
 * cannot keep an archive in band however it ranks (ARCHITECTURE.md, "Metric definitions").
 */
export function predictionLines(r: EvalResult): string[] {
  const line = (what: string, c: NonNullable<EvalResult['summary']['modelCheck']>): string =>
    `${what}: off by ${c.rmsError.toFixed(2)} rms (noise removed${typeof r.summary.trueSpread === 'number' ? `; knowing only the mean: ${r.summary.trueSpread.toFixed(2)}` : ''}), bias ${c.bias >= 0 ? '+' : '−'}${Math.abs(c.bias).toFixed(2)}, slope ${c.slope === null ? '—' : c.slope.toFixed(2)} (1 calibrated, 0 no information) over ${c.pairs} pairs`;
  const lines: string[] = [];
  if (r.summary.modelCheck) lines.push(line("the run's fitted model", r.summary.modelCheck));
  if (r.summary.evidenceCheck) lines.push(line("the run's pooled evidence", r.summary.evidenceCheck));
  return lines;
}

/** The table people read: one line per pair, then the archive as a whole and the user effect. */
export function formatEval(r: EvalResult, dir: string): string {
  const lines = [
    `# eval of ${r.source.runDir ? `run ${r.source.runId}` : r.source.paths.join(', ')} · agent ${r.agent.id} · ${r.n} plays per pair · seed ${r.seed}`,
    '',
    '| pair | environment | user | success | 95 % interval | in band | difficulty |',
    '|---|---|---|---:|---|---|---:|',
    ...r.pairs.map((p) => `| ${p.pairId} | ${p.envId} | ${p.userId} | ${pct(p.success)} | ${pct(p.ci[0])}–${pct(p.ci[1])} | ${p.inBand ? 'yes' : 'no'} | ${(p.runScaleDifficulty ?? p.difficulty).toFixed(2)} |`),
    '',
    evalSummaryLine(r),
    ...predictionLines(r),
    `rollout ids ${r.rolloutIds.prefix}* checked against ${r.rolloutIds.checkedAgainst} ids of the run: no overlap`,
  ];
  if (r.userEffect?.mean) {
    const m = r.userEffect.mean;
    lines.push(`evolved users vs their parents (parent − child success, same fresh ids): ${m.mean.toFixed(3)} ${m.n >= 2 ? `[${m.ci[0].toFixed(3)}, ${m.ci[1].toFixed(3)}] over ${m.n} users` : 'from one user (no interval over users)'}; outside realism bounds: ${r.userEffect.users.filter((u) => u.realismViolations.length > 0).length}`);
  }
  lines.push(`stored in ${dir}`);
  return `${lines.join('\n')}\n`;
}
