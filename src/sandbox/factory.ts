import type { SandboxBackend, SandboxBackendName } from '../core/ports/sandbox.js';
import { BwrapBackend } from './bwrap/bwrapBackend.js';
import type { BwrapBackendOptions } from './bwrap/bwrapBackend.js';
import { DockerBackend } from './docker/dockerBackend.js';
import type { DockerBackendOptions } from './docker/dockerBackend.js';
import { DockerHostPool } from './docker/hostPool.js';
import type { DockerHostEntry } from './docker/hostPool.js';
import { WarmPool } from './docker/warmPool.js';
import { ProcessBackend } from './process/processBackend.js';

export interface SandboxBackendOptions {
  /** Warnings a person must see (the process backend is unsandboxed). Defaults to stderr. */
  warn?: (message: string) => void;
  /** Single-host docker options (endpoint, extra labels, Podman ulimits). */
  docker?: DockerBackendOptions;
  /** Several Docker engines as one pool (RunConfig.sandbox.hosts); empty: one host from `docker.url` or DOCKER_HOST. */
  hosts?: DockerHostEntry[];
  /** Warm sandboxes kept per shape (docker only). */
  warmPool?: number;
  bwrap?: BwrapBackendOptions;
}

export const sandboxBackendNames: readonly SandboxBackendName[] = ['docker', 'bwrap', 'process'];

/**
 * COEVOLVE_SANDBOX_CHANNEL=off runs every command as its own `docker exec` / bwrap, the path before the command
 * channel (benchmarks compare against it; a fallback when a channel misbehaves). Anything else: the channel.
 */
export function channelWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.COEVOLVE_SANDBOX_CHANNEL !== 'off';
}

/** Creates a backend by name; "process" must be asked for explicitly and warns every time it is used. */
export function createSandboxBackend(name: SandboxBackendName, given: SandboxBackendOptions = {}): SandboxBackend {
  const channel = channelWanted();
  const options: SandboxBackendOptions = {
    ...given,
    docker: { channel, ...(given.warn ? { warn: given.warn } : {}), ...given.docker },
    bwrap: { channel, ...(given.warn ? { warn: given.warn } : {}), ...given.bwrap },
  };
  switch (name) {
    case 'process':
      return new ProcessBackend({ warn: options.warn });
    case 'docker': {
      if (options.hosts && options.hosts.length > 0) {
        return new DockerHostPool(options.hosts, { ...options.docker, warmPool: options.warmPool });
      }
      const backend = new DockerBackend(options.docker);
      return options.warmPool ? new WarmPool(backend, { size: options.warmPool, labels: options.docker?.labels }) : backend;
    }
    case 'bwrap':
      return new BwrapBackend(options.bwrap);
    default:
      throw new Error(`unknown sandbox backend "${String(name)}"; use one of: ${sandboxBackendNames.join(', ')}`);
  }
}
