import type { SandboxBackend, SandboxBackendName } from '../core/ports/sandbox.js';
import { DockerBackend } from './docker/dockerBackend.js';
import type { DockerBackendOptions } from './docker/dockerBackend.js';
import { ProcessBackend } from './process/processBackend.js';

export interface SandboxBackendOptions {
  /** Warnings a person must see (the process backend is unsandboxed). Defaults to stderr. */
  warn?: (message: string) => void;
  docker?: DockerBackendOptions;
}

export const sandboxBackendNames: readonly SandboxBackendName[] = ['docker', 'bwrap', 'process'];

/** Creates a backend by name; "process" must be asked for explicitly and warns every time it is used. */
export function createSandboxBackend(name: SandboxBackendName, options: SandboxBackendOptions = {}): SandboxBackend {
  switch (name) {
    case 'process':
      return new ProcessBackend({ warn: options.warn });
    case 'docker':
      return new DockerBackend(options.docker);
    default:
      throw new Error(`sandbox backend "${name}" is not available yet in this build; use one of: docker, process`);
  }
}
