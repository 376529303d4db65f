import type { SandboxFile, SandboxLimits } from '../spec/environment.js';
import type { Cancellation } from './cancellation.js';

export type SandboxBackendName = 'docker' | 'bwrap' | 'process';

/** What a sandbox is started from: the environment's sandbox section plus labels for the reaper. */
export interface SandboxRequest {
  image: string;
  workdir: string;
  files: SandboxFile[];
  setup: string[];
  env: Record<string, string>;
  limits: SandboxLimits;
  /** Labels put on everything the backend creates (run id, rollout id), so leftovers can be reaped. */
  labels: Record<string, string>;
}

export interface ExecOptions {
  timeoutMs?: number;
  stdin?: string;
  cwd?: string;
  env?: Record<string, string>;
  maxOutputBytes?: number;
  /** Run as root inside the sandbox (setup and verifier only; agent commands never do). */
  privileged?: boolean;
  signal?: Cancellation;
}

export interface ExecResult {
  stdout: string;
  stderr: string;
  exitCode: number;
  timedOut: boolean;
  /** True when output beyond maxOutputBytes was cut; the head and the tail are kept with a marker between. */
  truncated: boolean;
  durationMs: number;
}

export interface Sandbox {
  readonly id: string;
  readonly backend: SandboxBackendName;
  /** Where this sandbox runs (a Docker host URL, "local"). */
  readonly host: string;
  exec(command: string, options?: ExecOptions): Promise<ExecResult>;
  putFiles(files: SandboxFile[], options?: { signal?: Cancellation }): Promise<void>;
  /** Reads a file by absolute path or path relative to the workdir; undefined when it does not exist. */
  getFile(path: string, options?: { signal?: Cancellation }): Promise<Buffer | undefined>;
  /** Removes the sandbox and everything it created. Idempotent. */
  stop(): Promise<void>;
}

export interface SandboxBackend {
  readonly name: SandboxBackendName;
  /** Starts a sandbox, writes its files and runs its setup. */
  start(request: SandboxRequest, options?: { signal?: Cancellation }): Promise<Sandbox>;
  /** Removes leftovers whose run is no longer alive. Returns what was removed. */
  reap?(isAlive: (labels: Record<string, string>) => boolean): Promise<{ containers: number; volumes: number }>;
  dispose(): Promise<void>;
}

/**
 * The sandbox's host stopped answering (a Docker daemon died or became unreachable). The rollout cannot go on in
 * this sandbox, but it can be retried from the start on another host: call `start` again on the same backend, whose
 * placement no longer picks the lost host.
 */
export class SandboxHostLostError extends Error {
  readonly retryable = true;
  constructor(readonly host: string, cause?: unknown) {
    super(`sandbox host ${host} stopped answering (${cause instanceof Error ? cause.message : String(cause ?? 'no reply')}); the rollout can be retried on another host`);
    this.name = 'SandboxHostLostError';
  }
}

/** The sandbox image is not present on the host; images are never pulled. */
export class SandboxImageMissingError extends Error {
  constructor(readonly image: string, readonly host: string) {
    super(`image "${image}" is not on Docker host ${host}, and sandboxes never pull images. Build the base images with \`coevolve sandbox build-image --variant busybox\` (or --variant debian), or build/load "${image}" on that host yourself.`);
    this.name = 'SandboxImageMissingError';
  }
}
