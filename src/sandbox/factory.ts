import type { SandboxBackend, SandboxBackendName } from '../core/ports/sandbox.js';
import { BwrapBackend } from './bwrap/bwrapBackend.js';
import type { BwrapBackendOptions } from './bwrap/bwrapBackend.js';
import { DockerBackend } from './docker/dockerBackend.js';
import type { DockerBackendOptions } from './docker/dockerBackend.js';
import { ProcessBackend } from './process/processBackend.js';

export interface SandboxBackendOptions {
  /** Warnings a person must see (the process backend is unsandboxed). Defaults to stderr. */
  warn?: (message: string) => void;
  docker?: DockerBackendOptions;
  bwrap?: BwrapBackendOptions;
}

export const sandboxBackendNames: readonly SandboxBackendName[] = ['docker', 'bwrap', 'process'];

/** Creates a backend by name; "process" must be asked for explicitly and warns every time it is used. */
export function createSandboxBackend(name: SandboxBackendName, options: SandboxBackendOptions = {}): SandboxBackend {
  switch (name) {
    case 'process':
      return new ProcessBackend({ warn: options.warn });
    case 'docker':
      return new DockerBackend(options.docker);
    case 'bwrap':
      return new BwrapBackend(options.bwrap);
    default:
      throw new Error(`unknown sandbox backend "${name}"; use one of: ${sandboxBackendNames.join(', ')}`);
  }
}
