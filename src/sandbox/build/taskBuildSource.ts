import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';
import { maxSpecFileBytes } from '../../core/spec/parse.js';
import { FileReadError, readFileBounded } from '../../files/boundedRead.js';
import type { TaskImageInput } from './buildTaskImage.js';

/** Where a task's image comes from, with the task.toml / task.yaml knobs the build honours. */
export interface TaskBuildSource extends TaskImageInput {
  /** The task folder (or spec file) the user named. */
  source: string;
  layout: 'harbor' | 'terminal-bench-1';
  timeoutSec?: number;
  memoryMb?: number;
}

export class TaskBuildSourceError extends Error {
  constructor(readonly source: string, message: string) {
    super(`${source}: ${message}`);
    this.name = 'TaskBuildSourceError';
  }
}

const composeNames = ['docker-compose.yaml', 'docker-compose.yml', 'compose.yaml', 'compose.yml'];

/**
 * What to build for one command-line argument: a Harbor task folder (environment/Dockerfile, or a single-service
 * environment/docker-compose.yaml), a Terminal-Bench 1 folder (task.yaml + Dockerfile), an imported environment spec
 * (its `provenance.source` names the task folder), a folder of task folders, or a folder of imported specs (what
 * `coevolve import --out` writes).
 */
export function resolveBuildSources(arg: string, cwd: string, options: { bases?: Record<string, string>; buildArgs?: Record<string, string> } = {}): TaskBuildSource[] {
  const path = resolve(cwd, arg);
  const shown = (p: string): string => relative(cwd, p) || '.';
  if (!existsSync(path)) throw new TaskBuildSourceError(arg, 'does not exist');
  const base = { buildArgs: options.buildArgs ?? {}, bases: options.bases ?? {} };
  if (statSync(path).isFile()) {
    if (!isEnvSpecName(path)) throw new TaskBuildSourceError(arg, 'is a file; pass a task folder (Harbor or Terminal-Bench 1) or an environment spec (*.env.yaml)');
    const doc = parseYaml(specText(path, arg)) as { provenance?: Record<string, unknown> } | null;
    const m = /^(?:harbor|terminal-bench-1):(.+)$/.exec(typeof doc?.provenance?.source === 'string' ? doc.provenance.source : '');
    if (!m) throw new TaskBuildSourceError(arg, 'was not imported from a Harbor or Terminal-Bench 1 task (provenance.source), so it has no Dockerfile to build; its sandbox.image must already exist');
    if (!existsSync(m[1]!)) throw new TaskBuildSourceError(arg, `was imported from ${m[1]}, which is no longer there; import the task again or build its image yourself`);
    return resolveBuildSources(m[1]!, cwd, options).map((s) => ({ ...s, source: shown(path) }));
  }
  const one = taskFolderSource(path, shown(path), base);
  if (one) return [one];
  const children = readdirSync(path).sort().map((n) => join(path, n)).filter((p) => statSync(p).isDirectory() && !basename(p).startsWith('.'));
  const found = children.map((c) => taskFolderSource(c, shown(c), base)).filter((s): s is TaskBuildSource => s !== undefined);
  if (found.length > 0) return found;
  const specs = readdirSync(path).sort().filter(isEnvSpecName).map((n) => join(path, n)).filter((p) => statSync(p).isFile());
  if (specs.length === 0) throw new TaskBuildSourceError(arg, 'is not a task folder (environment/Dockerfile, or task.yaml with a Dockerfile) and holds none, nor any environment spec (*.env.yaml)');
  return specs.flatMap((p) => resolveBuildSources(p, cwd, options));
}

/** An environment spec's file name (`*.env.yaml`, `*.env.yml`, `*.env.json`). */
export const isEnvSpecName = (p: string): boolean => /\.env\.(ya?ml|json)$/.test(p);

/** A spec's text, bounded like every spec read (a FIFO or /dev/zero under a spec name is refused, never read). */
function specText(path: string, shown: string): string {
  try {
    return readFileBounded(path, { maxBytes: maxSpecFileBytes }).toString('utf8');
  } catch (err) {
    if (err instanceof FileReadError) throw new TaskBuildSourceError(shown, `cannot read the spec: it ${err.reason}`);
    throw err;
  }
}

function taskFolderSource(dir: string, shown: string, base: Pick<TaskImageInput, 'buildArgs' | 'bases'>): TaskBuildSource | undefined {
  const name = basename(dir);
  const envDir = join(dir, 'environment');
  if (existsSync(join(dir, 'task.toml')) || existsSync(join(envDir, 'Dockerfile')) || composeNames.some((c) => existsSync(join(envDir, c)))) {
    const knobs = harborKnobs(dir, shown);
    const compose = composeNames.find((c) => existsSync(join(envDir, c)));
    if (compose) return withCompose(composeSource(envDir, compose, `${shown}/environment`), base, { ...knobs, name, source: shown, layout: 'harbor' });
    if (!existsSync(join(envDir, 'Dockerfile'))) throw new TaskBuildSourceError(shown, 'has no environment/Dockerfile (nor environment/docker-compose.yaml) to build');
    return { ...base, ...knobs, name, source: shown, layout: 'harbor', contextDir: envDir, dockerfile: 'Dockerfile', shownDockerfile: `${shown}/environment/Dockerfile` };
  }
  if (existsSync(join(dir, 'task.yaml'))) {
    const compose = composeNames.find((c) => existsSync(join(dir, c)));
    if (compose) return withCompose(composeSource(dir, compose, shown), base, { name, source: shown, layout: 'terminal-bench-1' });
    if (!existsSync(join(dir, 'Dockerfile'))) throw new TaskBuildSourceError(shown, 'is a Terminal-Bench 1 task without a Dockerfile');
    return { ...base, name, source: shown, layout: 'terminal-bench-1', contextDir: dir, dockerfile: 'Dockerfile', shownDockerfile: `${shown}/Dockerfile` };
  }
  return undefined;
}

/** Command-line build args win over the compose file's. */
function withCompose(c: ReturnType<typeof composeSource>, base: Pick<TaskImageInput, 'buildArgs' | 'bases'>, rest: Pick<TaskBuildSource, 'name' | 'source' | 'layout' | 'timeoutSec' | 'memoryMb'>): TaskBuildSource {
  return { ...c, ...rest, bases: base.bases, buildArgs: { ...c.buildArgs, ...base.buildArgs } };
}

function harborKnobs(dir: string, shown: string): { timeoutSec?: number; memoryMb?: number } {
  const p = join(dir, 'task.toml');
  if (!existsSync(p)) return {};
  let toml: { environment?: { build_timeout_sec?: unknown; memory_mb?: unknown } };
  try {
    toml = parseToml(readFileSync(p, 'utf8')) as typeof toml;
  } catch (err) {
    throw new TaskBuildSourceError(`${shown}/task.toml`, `does not parse: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
  }
  const env = toml.environment ?? {};
  return {
    ...(typeof env.build_timeout_sec === 'number' && env.build_timeout_sec > 0 ? { timeoutSec: env.build_timeout_sec } : {}),
    ...(typeof env.memory_mb === 'number' && env.memory_mb >= 64 ? { memoryMb: env.memory_mb } : {}),
  };
}

type ComposeService = { build?: string | { context?: string; dockerfile?: string; args?: Record<string, string> | string[] }; image?: string };

/**
 * A compose file is buildable when it has exactly one service and that service builds from a Dockerfile; more
 * services cannot run, because a Coevolve sandbox is one container with no network between containers.
 */
function composeSource(dir: string, file: string, shownDir: string): Pick<TaskImageInput, 'contextDir' | 'dockerfile' | 'shownDockerfile'> & { buildArgs?: Record<string, string> } {
  const shown = `${shownDir}/${file}`;
  let doc: { services?: Record<string, ComposeService> };
  try {
    doc = (parseYaml(readFileSync(join(dir, file), 'utf8')) ?? {}) as typeof doc;
  } catch (err) {
    throw new TaskBuildSourceError(shown, `does not parse: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
  }
  const services = Object.entries(doc.services ?? {});
  if (services.length !== 1) {
    throw new TaskBuildSourceError(shown, `has ${services.length} services (${services.map(([n]) => n).join(', ') || 'none'}); multi-container tasks are not supported yet: a Coevolve sandbox is a single container with no network, so services that talk to each other cannot run in it`);
  }
  const [svcName, svc] = services[0]!;
  if (!svc.build) throw new TaskBuildSourceError(shown, `service "${svcName}" has no build section (image: ${svc.image ?? 'none'}); there is nothing to build`);
  const build = typeof svc.build === 'string' ? { context: svc.build } : svc.build;
  const contextDir = resolve(dir, build.context ?? '.');
  const rel = relative(dir, contextDir);
  if (rel.startsWith('..')) throw new TaskBuildSourceError(shown, `service "${svcName}" builds from ${build.context}, outside the task folder; refused`);
  const args = Array.isArray(build.args) ? Object.fromEntries(build.args.map((a) => a.split('=', 2) as [string, string])) : (build.args ?? {});
  const dockerfile = build.dockerfile ?? 'Dockerfile';
  return { contextDir, dockerfile, shownDockerfile: `${shownDir}/${rel ? `${rel}/` : ''}${dockerfile}`, buildArgs: Object.fromEntries(Object.entries(args).map(([k, v]) => [k, String(v)])) };
}

/** `FROM=TO` pairs from the command line (`--base ubuntu:24.04=coevolve/debian:bookworm`). */
export function parseBaseMap(pairs: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of pairs) {
    const at = p.indexOf('=');
    if (at <= 0 || at === p.length - 1) throw new Error(`--base "${p}": write it as FROM-IMAGE=LOCAL-IMAGE, e.g. ubuntu:24.04=coevolve/debian:bookworm`);
    out[p.slice(0, at).trim()] = p.slice(at + 1).trim();
  }
  return out;
}
