import type Docker from 'dockerode';
import { pack } from 'tar-stream';
import { contextDigest, defaultContextLimits, fsContextReader, type BuildContextLimits, type BuildContextReader, type ContextEntry } from './buildContext.js';
import { dockerfileSteps, externalFromImages, substituteBases, type DockerfileStep } from './dockerfileSteps.js';

export interface TaskImageInput {
  /** A name for the tag and messages (the task folder's name). */
  name: string;
  /** The build context folder. */
  contextDir: string;
  /** Path of the Dockerfile inside the context. */
  dockerfile: string;
  /** How the Dockerfile is named in messages (e.g. "count-errors/environment/Dockerfile"). */
  shownDockerfile: string;
  buildArgs: Record<string, string>;
  /** FROM images replaced by local ones, e.g. { "ubuntu:24.04": "coevolve/debian:bookworm" }. */
  bases: Record<string, string>;
}

export interface TaskImagePlan {
  tag: string;
  digest: string;
  entries: ContextEntry[];
  /** The Dockerfile as it will be built (bases substituted). */
  dockerfileText: string;
  steps: DockerfileStep[];
  froms: { image: string; line: number }[];
  replaced: { from: string; to: string; line: number }[];
}

/** The repository part of every task image tag; the tag part is the context digest. */
export const taskImageRepository = 'coevolve-task';

export function taskImageTag(name: string, digest: string): string {
  const slug = name.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[^a-z0-9]+/, '').replace(/-+$/, '').slice(0, 100) || 'task';
  return `${taskImageRepository}/${slug}:${digest.slice(0, 16)}`;
}

/** Reads the context and computes the content-addressed tag; no Docker host needed. */
export async function planTaskImage(input: TaskImageInput, options: { reader?: BuildContextReader; limits?: BuildContextLimits } = {}): Promise<TaskImagePlan> {
  const entries = await (options.reader ?? fsContextReader).read(input.contextDir, options.limits ?? defaultContextLimits);
  const df = entries.find((e) => e.path === input.dockerfile);
  if (!df || df.kind !== 'file') throw new Error(`${input.shownDockerfile}: no Dockerfile there (a regular file is needed)`);
  const { text, replaced } = substituteBases(df.content.toString('utf8'), input.bases, input.buildArgs);
  const steps = dockerfileSteps(text);
  if (!steps.some((s) => s.op === 'FROM')) throw new Error(`${input.shownDockerfile}: has no FROM instruction`);
  const froms = externalFromImages(steps, input.buildArgs).map((f) => ({ image: f.image, line: f.line }));
  const digest = contextDigest(text, input.dockerfile, entries, input.buildArgs);
  return { tag: taskImageTag(input.name, digest), digest, entries, dockerfileText: text, steps, froms, replaced };
}

export interface BuildTaskImageOptions {
  docker: Docker;
  /** Pull FROM images that are missing (never in CI). */
  pull?: boolean;
  /** Rebuild even when an image with the tag and the same base images exists. */
  force?: boolean;
  labels?: Record<string, string>;
  /** One line per build step and per pull, for a progress display. */
  progress?: (line: string) => void;
  timeoutSec?: number;
  /** Memory limit of the build containers, MiB. */
  memoryMb?: number;
}

export interface BuildTaskImageResult {
  tag: string;
  imageId: string;
  /** False when a matching image was already there (the cache). */
  built: boolean;
  durationMs: number;
  baseImages: Record<string, string>;
}

/** A build failure with the Dockerfile line of the step that failed. */
export class TaskImageBuildError extends Error {
  constructor(readonly where: string, message: string, readonly output: string) {
    super(`${where}: ${message}`);
    this.name = 'TaskImageBuildError';
  }
}

/**
 * Builds a task image with dockerode: the context as a tar, build args, labels, the content-addressed tag, the
 * daemon's layer cache, no network for RUN steps. Base images are never pulled unless asked, and never in CI.
 */
export async function buildTaskImage(input: TaskImageInput, plan: TaskImagePlan, options: BuildTaskImageOptions): Promise<BuildTaskImageResult> {
  const started = performance.now();
  const { docker } = options;
  const progress = options.progress ?? (() => undefined);
  const baseImages: Record<string, string> = {};
  for (const f of plan.froms) {
    let id = await imageId(docker, f.image);
    if (!id) {
      if (!options.pull) {
        throw new TaskImageBuildError(`${input.shownDockerfile}:${f.line}`, `FROM ${f.image}: the image is not on this Docker host. Pass --pull to pull it, load it yourself (docker load), or build on a local base with --base ${f.image}=coevolve/debian:bookworm`, '');
      }
      if (process.env.CI) throw new TaskImageBuildError(`${input.shownDockerfile}:${f.line}`, `FROM ${f.image}: not on this host, and --pull is refused in CI (CI is set): CI never pulls images`, '');
      await pullImage(docker, f.image, progress);
      id = await imageId(docker, f.image);
      if (!id) throw new TaskImageBuildError(`${input.shownDockerfile}:${f.line}`, `FROM ${f.image}: the pull finished but the image is not there`, '');
    }
    baseImages[f.image] = id;
  }
  const basesLabel = JSON.stringify(baseImages);
  if (!options.force) {
    const existing = await inspect(docker, plan.tag);
    if (existing && existing.Config?.Labels?.['coevolve.base-images'] === basesLabel) {
      progress(`${plan.tag}: up to date (same context and base images)`);
      return { tag: plan.tag, imageId: existing.Id, built: false, durationMs: Math.round(performance.now() - started), baseImages };
    }
  }
  const labels = {
    ...options.labels,
    'coevolve.task-image': '1',
    'coevolve.task': input.name.slice(0, 200),
    'coevolve.context-digest': plan.digest,
    'coevolve.base-images': basesLabel,
    ...(plan.replaced.length > 0 ? { 'coevolve.base-substituted': JSON.stringify(plan.replaced.map((r) => `${r.from}=${r.to}`)) } : {}),
  };
  const stream = await docker.buildImage(contextTar(plan, input.dockerfile), {
    t: plan.tag,
    dockerfile: input.dockerfile,
    buildargs: input.buildArgs,
    labels,
    networkmode: 'none',
    pull: false,
    rm: true,
    forcerm: true,
    ...(options.memoryMb ? { memory: options.memoryMb * 1024 * 1024, memswap: options.memoryMb * 1024 * 1024 } : {}),
  } as Docker.ImageBuildOptions);
  const output = await followBuild(docker, stream, input, plan, progress, options.timeoutSec);
  const id = await imageId(docker, plan.tag);
  if (!id) throw new TaskImageBuildError(input.shownDockerfile, `the build reported success but ${plan.tag} is not on the host`, output);
  return { tag: plan.tag, imageId: id, built: true, durationMs: Math.round(performance.now() - started), baseImages };
}

function contextTar(plan: TaskImagePlan, dockerfile: string): NodeJS.ReadableStream {
  const tar = pack();
  const mtime = new Date(0);
  for (const e of plan.entries) {
    const header = { name: e.path, mode: e.mode, mtime, uid: 0, gid: 0 };
    if (e.kind === 'dir') tar.entry({ ...header, type: 'directory' });
    else if (e.kind === 'symlink') tar.entry({ ...header, type: 'symlink', linkname: e.target });
    else tar.entry(header, e.path === dockerfile ? Buffer.from(plan.dockerfileText, 'utf8') : e.content);
  }
  tar.finalize();
  // tar-stream's Pack is a streamx Readable, which dockerode pipes like a Node stream.
  return tar as unknown as NodeJS.ReadableStream;
}

interface BuildEvent { stream?: string; error?: string; errorDetail?: { message?: string; code?: number }; aux?: { ID?: string } }

/** Follows the build's JSON event stream; maps "Step N/M" to the Dockerfile line for errors. */
function followBuild(docker: Docker, stream: NodeJS.ReadableStream, input: TaskImageInput, plan: TaskImagePlan, progress: (l: string) => void, timeoutSec?: number): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    let output = '';
    let step = 0;
    const timer = timeoutSec ? setTimeout(() => {
      (stream as unknown as { destroy?: () => void }).destroy?.();
      reject(new TaskImageBuildError(where(step), `the build took longer than build_timeout_sec = ${timeoutSec}`, output));
    }, timeoutSec * 1000) : undefined;
    const where = (n: number): string => {
      const s = plan.steps[n - 1];
      return s ? `${input.shownDockerfile}:${s.line}` : input.shownDockerfile;
    };
    docker.modem.followProgress(stream, (err: Error | null) => {
      if (timer) clearTimeout(timer);
      if (err) reject(new TaskImageBuildError(where(step), err.message, output));
    }, (ev: BuildEvent) => {
      if (ev.stream) {
        output = (output + ev.stream).slice(-16_000);
        const m = /^Step (\d+)\/(\d+) : (.*)$/m.exec(ev.stream);
        if (m) {
          step = Number(m[1]);
          // The classic builder appends the build's labels as extra steps; only the Dockerfile's own are shown.
          if (step <= plan.steps.length) progress(`step ${m[1]}/${plan.steps.length} (${where(step)}): ${m[3]!.slice(0, 160)}`);
        }
        if (/^Successfully tagged /m.test(ev.stream)) {
          if (timer) clearTimeout(timer);
          resolvePromise(output);
        }
      }
      if (ev.error || ev.errorDetail) {
        if (timer) clearTimeout(timer);
        const s = plan.steps[step - 1];
        const what = s ? `${s.text.replace(/\s+/g, ' ').slice(0, 200)} failed: ` : '';
        reject(new TaskImageBuildError(where(step), `${what}${ev.errorDetail?.message ?? ev.error}`, output));
      }
    });
  });
}

async function pullImage(docker: Docker, image: string, progress: (l: string) => void): Promise<void> {
  progress(`pulling ${image}`);
  const stream = await docker.pull(image);
  await new Promise<void>((res, rej) => docker.modem.followProgress(stream, (err: Error | null) => (err ? rej(err) : res()), (ev: { status?: string; id?: string }) => {
    if (ev.status && /Pull complete|Downloaded newer|up to date/.test(ev.status)) progress(`${image}: ${ev.status}`);
  }));
}

async function inspect(docker: Docker, tag: string): Promise<Docker.ImageInspectInfo | undefined> {
  try {
    return await docker.getImage(tag).inspect();
  } catch {
    return undefined;
  }
}

async function imageId(docker: Docker, tag: string): Promise<string | undefined> {
  return (await inspect(docker, tag))?.Id;
}
