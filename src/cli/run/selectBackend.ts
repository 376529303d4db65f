import { spawnSync } from 'node:child_process';
import { buildHint, type SandboxBackend, type SandboxBackendName } from '../../core/ports/sandbox.js';
import type { RunConfig } from '../../core/spec/run.js';
import { createSandboxBackend, type SandboxBackendOptions } from '../../sandbox/factory.js';
import { dockerFromUrl } from '../../sandbox/docker/connect.js';
import { UserError } from '../errors.js';

export interface BackendChoice {
  backend: SandboxBackend;
  name: SandboxBackendName;
  /** Why this backend was chosen, for the run's log line. */
  reason: string;
}

/**
 * Resolves the configured backend. "auto" prefers Docker (it answers and has every image the population needs), then
 * bubblewrap; the unsandboxed process backend is used only when asked for, or as an explicit fallback.
 */
export async function selectBackend(
  sandbox: RunConfig['sandbox'],
  images: string[],
  options: SandboxBackendOptions & { allowProcessFallback?: boolean; labels?: Record<string, string> },
): Promise<BackendChoice> {
  const wanted = sandbox.backend;
  const docker = (): SandboxBackend =>
    createSandboxBackend('docker', {
      ...options,
      docker: { ...options.docker, ...(options.labels ? { labels: options.labels } : {}) },
      hosts: sandbox.hosts.map((h) => ({ url: h.url, maxContainers: h.maxContainers, ...(h.tlsDir ? { tlsDir: h.tlsDir } : {}) })),
      warmPool: sandbox.warmPool,
    });
  if (wanted === 'docker') return { backend: docker(), name: 'docker', reason: 'configured' };
  if (wanted === 'bwrap') return { backend: createSandboxBackend('bwrap', { ...options, ...(sandbox.rootfs ? { bwrap: { ...options.bwrap, rootfs: sandbox.rootfs } } : {}) }), name: 'bwrap', reason: 'configured' };
  if (wanted === 'process') return { backend: createSandboxBackend('process', options), name: 'process', reason: 'configured' };

  const dockerProblem = await probeDocker(images, sandbox.hosts[0]?.url);
  if (!dockerProblem) return { backend: docker(), name: 'docker', reason: 'auto: Docker answers and has the images' };
  const bwrapProblem = probeBwrap();
  if (!bwrapProblem) {
    try {
      return { backend: createSandboxBackend('bwrap', options), name: 'bwrap', reason: `auto: ${dockerProblem}; using bubblewrap` };
    } catch (err) {
      if (!options.allowProcessFallback) throw err;
    }
  }
  if (options.allowProcessFallback) {
    return { backend: createSandboxBackend('process', options), name: 'process', reason: `auto: ${dockerProblem}; ${bwrapProblem ?? 'bubblewrap backend unavailable'}; falling back to the UNSANDBOXED process backend` };
  }
  throw new UserError(
    `no sandbox backend available: ${dockerProblem}; ${bwrapProblem ?? 'bubblewrap backend unavailable'}.\n` +
      '  Fix: start Docker and run `coevolve sandbox build-image`, or install bubblewrap (apt-get install bubblewrap),\n' +
      '  or pass --backend process to run without a sandbox (development only). `coevolve sandbox doctor` explains more.',
  );
}

async function probeDocker(images: string[], url: string | undefined): Promise<string | undefined> {
  try {
    const d = dockerFromUrl(url ?? process.env.DOCKER_HOST);
    await withTimeout(d.ping(), 2000);
    for (const image of new Set(images)) {
      try {
        await withTimeout(d.getImage(image).inspect(), 2000);
      } catch {
        return `Docker has no image ${image} (${buildHint(image)})`;
      }
    }
    return undefined;
  } catch (err) {
    return `Docker does not answer (${err instanceof Error ? err.message : String(err)})`;
  }
}

function probeBwrap(): string | undefined {
  const r = spawnSync('bwrap', ['--version'], { encoding: 'utf8' });
  if (r.error || r.status !== 0) return 'bubblewrap is not installed';
  return undefined;
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((res, rej) => {
    const t = setTimeout(() => rej(new Error(`no answer in ${ms} ms`)), ms);
    p.then((v) => { clearTimeout(t); res(v); }, (e) => { clearTimeout(t); rej(e); });
  });
}
