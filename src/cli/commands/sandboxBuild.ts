import type { Command } from 'commander';
import type Docker from 'dockerode';
import { buildTaskImage, planTaskImage } from '../../sandbox/build/buildTaskImage.js';
import { parseBaseMap, resolveBuildSources, type TaskBuildSource } from '../../sandbox/build/taskBuildSource.js';
import { dockerFromUrl } from '../../sandbox/docker/connect.js';
import { UserError } from '../errors.js';
import type { CommandOutput } from './validate.js';

export interface SandboxBuildOptions {
  host?: string;
  pull?: boolean;
  force?: boolean;
  base?: string[];
  buildArg?: string[];
  json?: boolean;
  /** Labels added to every image (tests mark theirs). */
  labels?: Record<string, string>;
}

export interface BuiltTask {
  source: string;
  tag: string;
  built: boolean;
  error?: string;
}

const processOutput: CommandOutput & { err(text: string): void } = { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t), cwd: process.cwd() };

/**
 * `coevolve sandbox build <task folder | env spec...>`: builds each task's image and prints its tag. Every source is
 * tried; the exit code is 1 when any failed. `docker` is injected by tests.
 */
export async function runSandboxBuild(args: string[], opts: SandboxBuildOptions, output = processOutput, docker?: Docker): Promise<{ code: number; results: BuiltTask[] }> {
  let bases: Record<string, string>;
  let buildArgs: Record<string, string>;
  try {
    bases = parseBaseMap(opts.base ?? []);
    buildArgs = Object.fromEntries(Object.entries(parseBaseMap(opts.buildArg ?? [])));
  } catch (err) {
    throw new UserError((err as Error).message.replace('--base', opts.buildArg?.length ? '--build-arg' : '--base'), 2);
  }
  const client = docker ?? dockerFromUrl(opts.host);
  await client.ping().catch((err: Error) => {
    throw new UserError(`cannot reach Docker (${err.message}); start the engine or set DOCKER_HOST`);
  });
  const results: BuiltTask[] = [];
  for (const arg of args) {
    let sources: TaskBuildSource[];
    try {
      sources = resolveBuildSources(arg, output.cwd, { bases, buildArgs });
    } catch (err) {
      results.push({ source: arg, tag: '', built: false, error: (err as Error).message });
      if (!opts.json) output.err(`error: ${(err as Error).message}\n`);
      continue;
    }
    for (const s of sources) results.push(await buildOne(client, s, opts, output));
  }
  if (opts.json) output.out(`${JSON.stringify(results, null, 2)}\n`);
  const failed = results.filter((r) => r.error).length;
  if (!opts.json) output.out(`${results.length - failed} image(s) ready, ${failed} failed\n`);
  return { code: failed > 0 ? 1 : 0, results };
}

async function buildOne(docker: Docker, s: TaskBuildSource, opts: SandboxBuildOptions, output: typeof processOutput): Promise<BuiltTask> {
  try {
    const plan = await planTaskImage(s);
    for (const r of plan.replaced) output.err(`${s.shownDockerfile}:${r.line}: FROM ${r.from} built on ${r.to} (--base)\n`);
    const result = await buildTaskImage(s, plan, {
      docker,
      ...(opts.pull ? { pull: true } : {}),
      ...(opts.force ? { force: true } : {}),
      ...(opts.labels ? { labels: opts.labels } : {}),
      ...(s.timeoutSec ? { timeoutSec: s.timeoutSec } : {}),
      ...(s.memoryMb ? { memoryMb: s.memoryMb } : {}),
      progress: (line) => output.err(`  ${line}\n`),
    });
    if (!opts.json) output.out(`${s.source}: ${result.tag} ${result.built ? `built in ${(result.durationMs / 1000).toFixed(1)} s` : 'already built'}\n`);
    return { source: s.source, tag: result.tag, built: result.built };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const tail = (err as { output?: string }).output?.trim().split('\n').slice(-12).join('\n');
    if (!opts.json) output.err(`error: ${message}\n${tail ? `${tail.replace(/^/gm, '  | ')}\n` : ''}`);
    return { source: s.source, tag: '', built: false, error: message };
  }
}

export function registerSandboxBuildCommand(sandbox: Command): void {
  const collect = (v: string, acc: string[]): string[] => [...acc, v];
  sandbox
    .command('build')
    .description("Build task images from their Dockerfile (Harbor environment/Dockerfile, Terminal-Bench 1 Dockerfile, single-service compose, or an imported spec's build context); prints each content-addressed tag.")
    .argument('<sources...>', 'task folders, folders of task folders, or imported *.env.yaml specs')
    .option('--base <from=to>', 'build on a local image instead of a FROM image (repeatable), e.g. ubuntu:24.04=coevolve/debian:bookworm', collect, [])
    .option('--build-arg <name=value>', 'a Dockerfile ARG value (repeatable)', collect, [])
    .option('--pull', 'pull FROM images that are not on the host (refused in CI)')
    .option('--force', 'rebuild even when the image is up to date')
    .option('--host <url>', 'Docker endpoint (default DOCKER_HOST or the local socket)')
    .option('--json', 'print the results as JSON')
    .action(async (args: string[], opts: SandboxBuildOptions) => {
      process.exitCode = (await runSandboxBuild(args, opts)).code;
    });
}
