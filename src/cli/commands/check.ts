import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import type Docker from 'dockerode';
import { validateEnvironment } from '../../core/evolution/validateEnvironment.js';
import type { SandboxBackend } from '../../core/ports/sandbox.js';
import type { EnvironmentSpec } from '../../core/spec/environment.js';
import { loadEnvironment } from '../../core/spec/load.js';
import { importHarborTasks } from '../../datasets/harborImport.js';
import { placeholderOracle } from '../../datasets/harborMapping.js';
import type { ImportResult } from '../../datasets/importReport.js';
import { importTb1Tasks } from '../../datasets/tb1Import.js';
import { buildTaskImage, planTaskImage } from '../../sandbox/build/buildTaskImage.js';
import { isEnvSpecName, resolveBuildSources } from '../../sandbox/build/taskBuildSource.js';
import { dockerFromUrl } from '../../sandbox/docker/connect.js';
import { readSpecTextSync } from '../../specs/workspace.js';
import { UserError } from '../errors.js';
import { assignTaskImages } from '../run/taskImages.js';
import { backendForCli } from './sandboxEnvironment.js';
import type { CommandOutput } from './validate.js';

export interface CheckOptions {
  backend?: string;
  json?: boolean;
  /** Labels on everything the check creates (tests mark theirs). */
  labels?: Record<string, string>;
}

export type CheckStatus = 'passed' | 'failed' | 'unvalidated' | 'error';

export interface CheckResult {
  source: string;
  id: string;
  status: CheckStatus;
  oracleReward?: number;
  emptyReward?: number;
  /** The validation's paragraph, with the verifier's own words on failure. */
  details: string;
}

/** True for an imported task that shipped no oracle: usable for eval, but nothing proves its tests can be passed. */
export function isUnvalidated(env: EnvironmentSpec): boolean {
  return env.oracle.script === placeholderOracle;
}

const processOutput: CommandOutput = { out: (t) => process.stdout.write(t), cwd: process.cwd() };

/**
 * `coevolve check <env specs | task folders...>`: the CLI face of the editor's Validate. Each environment's oracle
 * must earn full reward and an empty agent must not, in its built image; task folders (Harbor, Terminal-Bench 1)
 * are imported in memory and their images built first (cached by content). A task without an oracle is reported as
 * unvalidated, not failed. Exit 1 when any check failed or could not run.
 */
export async function runCheck(args: string[], opts: CheckOptions, output: CommandOutput = processOutput, docker?: Docker): Promise<{ code: number; results: CheckResult[] }> {
  const tmp = mkdtempSync(join(tmpdir(), 'coevolve-check-'));
  const results: CheckResult[] = [];
  const backends = new Map<string, SandboxBackend>();
  try {
    for (const arg of args) {
      let envs: { source: string; env: EnvironmentSpec }[];
      try {
        envs = await environmentsOf(arg, output.cwd, tmp);
      } catch (err) {
        results.push({ source: arg, id: '', status: 'error', details: err instanceof Error ? err.message : String(err) });
        continue;
      }
      for (const { source, env } of envs) results.push(await checkOne(source, env, opts, output, backends, docker));
    }
  } finally {
    for (const b of backends.values()) await b.dispose().catch(() => undefined);
    rmSync(tmp, { recursive: true, force: true });
  }
  if (opts.json) output.out(`${JSON.stringify(results, null, 2)}\n`);
  else {
    for (const r of results) output.out(`${line(r)}\n`);
    const n = (s: CheckStatus): number => results.filter((r) => r.status === s).length;
    output.out(`${n('passed')} passed, ${n('failed') + n('error')} failed, ${n('unvalidated')} unvalidated\n`);
  }
  return { code: results.some((r) => r.status === 'failed' || r.status === 'error') ? 1 : 0, results };
}

function line(r: CheckResult): string {
  const label = r.id ? `${r.id} (${r.source})` : r.source;
  switch (r.status) {
    case 'passed': return `PASS ${label}: oracle ${r.oracleReward}, empty agent ${r.emptyReward}`;
    case 'unvalidated': return `UNVALIDATED ${label}: no oracle (solution), so nothing shows its tests can be passed; usable for eval. Empty agent ${r.emptyReward ?? '?'}`;
    // An error before any environment was found already names its source first: say it once.
    default: return `FAIL ${label}: ${!r.id && r.details.startsWith(`${r.source}: `) ? r.details.slice(r.source.length + 2) : r.details}`;
  }
}

/** The environments an argument names: a spec file, a task folder, or a folder of task folders. */
async function environmentsOf(arg: string, cwd: string, tmp: string): Promise<{ source: string; env: EnvironmentSpec }[]> {
  const path = resolve(cwd, arg);
  if (!existsSync(path)) throw new UserError(`${arg}: does not exist`);
  if (statSync(path).isFile()) return [{ source: arg, env: loadEnvironment(readSpecTextSync(path, arg), arg) }];
  const specs = envSpecsIn(path);
  if (specs.length > 0) return specs.map((p) => ({ source: relative(cwd, p) || p, env: loadEnvironment(readSpecTextSync(p, relative(cwd, p)), relative(cwd, p)) }));
  const isTb1 = (d: string): boolean => existsSync(join(d, 'task.yaml')) && !existsSync(join(d, 'task.toml'));
  let result: ImportResult<EnvironmentSpec>;
  const tb1Children = (): boolean => readdirSync(path).some((n) => isTb1(join(path, n)));
  if (isTb1(path) || (!existsSync(join(path, 'task.toml')) && !existsSync(join(path, 'instruction.md')) && tb1Children())) {
    result = importTb1Tasks([path], { harborOut: join(tmp, `tb1-${Math.random().toString(36).slice(2)}`) });
  } else {
    result = importHarborTasks([path]);
  }
  await assignTaskImages(result, cwd);
  const out = result.imported.map((i) => ({ source: relative(cwd, i.source) || '.', env: i.spec }));
  const skippedAs = (s: { source: string; reason: string }): string => (resolve(cwd, s.source) === path ? s.reason : `${relative(cwd, s.source) || '.'}: ${s.reason}`);
  if (out.length === 0) throw new UserError(`${arg}: ${result.skipped.map(skippedAs).join('; ') || 'no task found'}`);
  return out;
}

/**
 * The environment specs of a folder that is not itself a task folder and holds none (a folder of imported specs,
 * as `coevolve import --out` writes it); empty for anything else, which goes to the importers.
 */
function envSpecsIn(dir: string): string[] {
  const isTask = (d: string): boolean => ['task.toml', 'instruction.md', 'task.yaml'].some((f) => existsSync(join(d, f)));
  if (isTask(dir)) return [];
  const names = readdirSync(dir).sort();
  if (names.some((n) => !n.startsWith('.') && statSync(join(dir, n)).isDirectory() && isTask(join(dir, n)))) return [];
  return names.filter(isEnvSpecName).map((n) => join(dir, n)).filter((p) => statSync(p).isFile());
}

async function checkOne(source: string, env: EnvironmentSpec, opts: CheckOptions, output: CommandOutput, backends: Map<string, SandboxBackend>, docker?: Docker): Promise<CheckResult> {
  const base = { source, id: env.id };
  try {
    if (env.sandbox.image.startsWith('coevolve-task/')) await ensureTaskImage(env, output.cwd, docker ?? dockerFromUrl());
    const labels = { 'coevolve.run': 'check', ...opts.labels };
    const key = `${opts.backend ?? 'auto'}|${env.sandbox.image}`;
    let backend = backends.get(key);
    if (!backend) {
      backend = (await backendForCli(opts.backend ?? 'auto', env.sandbox.image, labels)).backend;
      backends.set(key, backend);
    }
    const v = await validateEnvironment(env, backend, { labels });
    const emptyReward = 'verifier' in v.empty ? v.empty.verifier.reward : undefined;
    const oracleReward = 'verifier' in v.oracle ? v.oracle.verifier.reward : undefined;
    const rewards = { ...(oracleReward !== undefined ? { oracleReward } : {}), ...(emptyReward !== undefined ? { emptyReward } : {}) };
    if (isUnvalidated(env)) return { ...base, status: 'unvalidated', ...(emptyReward !== undefined ? { emptyReward } : {}), details: v.details };
    return { ...base, status: v.oraclePassed && v.emptyFailed ? 'passed' : 'failed', ...rewards, details: v.details };
  } catch (err) {
    return { ...base, status: 'error', details: err instanceof Error ? err.message : String(err) };
  }
}

/** A task image named by content is built from the task folder the spec came from, when it is not there yet. */
async function ensureTaskImage(env: EnvironmentSpec, cwd: string, docker: Docker): Promise<void> {
  const have = await docker.getImage(env.sandbox.image).inspect().then(() => true, () => false);
  if (have) return;
  const m = /^(?:harbor|terminal-bench-1):(.+)$/.exec(env.provenance.source ?? '');
  if (!m || !existsSync(m[1]!)) throw new Error(`image ${env.sandbox.image} is not built and the task folder it comes from is unknown; build it with \`coevolve sandbox build <the task folder>\``);
  const [s] = resolveBuildSources(m[1]!, cwd);
  if (!s) throw new Error(`${m[1]}: nothing to build`);
  const plan = await planTaskImage(s);
  if (plan.tag !== env.sandbox.image) throw new Error(`the spec names ${env.sandbox.image} but ${m[1]} now builds ${plan.tag} (the task changed since it was imported, or it was imported with --base); run \`coevolve sandbox build\` with the same --base, or import it again`);
  await buildTaskImage(s, plan, { docker, ...(s.timeoutSec ? { timeoutSec: s.timeoutSec } : {}) });
}

export function registerCheckCommand(program: Command): void {
  program
    .command('check')
    .description('Validate environments in their sandbox: the oracle must pass and an empty agent must fail (specs, Harbor or Terminal-Bench 1 task folders, or folders of them; task images are built first).')
    .argument('<sources...>', 'environment specs (*.env.yaml) or task folders')
    .option('--backend <name>', 'auto, docker, bwrap or process', 'auto')
    .option('--json', 'print the results as JSON')
    .action(async (sources: string[], opts: CheckOptions) => {
      process.exitCode = (await runCheck(sources, opts)).code;
    });
}
