import type { SandboxFile, SandboxLimits } from '../spec/environment.js';
import type { Cancellation } from './cancellation.js';

export type SandboxBackendName = 'docker' | 'bwrap' | 'process';

/**
 * Where the verifier's side lives inside every sandbox (Harbor's runtime paths). Neither exists with any content
 * while an agent process exists in the sandbox; see "The verifier's trust rule" in ARCHITECTURE.md.
 */
export const verifierPaths = {
  /** verifier.files, written after every agent process ended; paths in the spec are relative to it. */
  tests: '/tests',
  /** Empty when the verifier starts; the reward is read only from here. */
  logs: '/logs/verifier',
  /** Harbor's agent logs and artifacts: writable by the agent, collected into the rollout record after it ends. */
  agentLogs: '/logs/agent',
  artifacts: '/logs/artifacts',
  rewardTxt: '/logs/verifier/reward.txt',
  rewardJson: '/logs/verifier/reward.json',
} as const;

/**
 * A command: a string runs under `/bin/sh -c`; an array is an argv run exactly as given (no shell), so nothing a
 * caller holds ever has to be pasted into a command line.
 */
export type Command = string | readonly string[];

/**
 * Who runs a command. `agent`: uid 65534, no capabilities, sees the workspace and /tmp. `setup`: root, for the
 * environment's setup and the oracle; sees what the agent sees. `verifier`: root, the only role that sees /tests
 * and /logs/verifier; used only after every agent process has ended. (On bwrap "root" is uid 0 of a user namespace
 * with no capabilities, mapped to the same host user as the agent.)
 */
export type ExecRole = 'agent' | 'setup' | 'verifier';

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
  /**
   * Who `agent` commands run as: uid 65534 on a read-only root (default), or root in a writable container (docker
   * only; Harbor's model, see "The verifier's trust rule").
   */
  agentUser?: 'nobody' | 'root';
  /**
   * Whether the workspace starts with the image's own files at the workdir (default true, docker), as a container
   * of the image would show them. The verifier's fresh sandbox sets false: its workspace is the agent's copy alone,
   * so nothing the agent deleted comes back.
   */
  imageWorkdir?: boolean;
}

/**
 * How an agent's shell commands share state. `session`: one shell for the whole rollout, so `cd`, exported
 * variables and background jobs persist between commands. `stateless`: every command starts in a fresh shell in
 * the workdir. See README, "Shell mode".
 */
export type ShellMode = 'session' | 'stateless';

export interface ExecOptions {
  timeoutMs?: number;
  stdin?: string | Uint8Array;
  cwd?: string;
  env?: Record<string, string>;
  maxOutputBytes?: number;
  /** Default `agent`. */
  as?: ExecRole;
  /** Same as `as: 'setup'` (kept for callers written before roles). */
  privileged?: boolean;
  signal?: Cancellation;
  /**
   * `session`: run a command string in the agent's session shell (agent role only; `cwd` and `env` then apply only
   * when the session starts). Backends without a command channel run it stateless and say so in `shell`.
   */
  shell?: ShellMode;
}

export interface ExecResult {
  stdout: string;
  stderr: string;
  exitCode: number;
  timedOut: boolean;
  /** True when output beyond maxOutputBytes was cut; the head and the tail are kept with a marker between. */
  truncated: boolean;
  durationMs: number;
  /** What carried the command: the sandbox's command channel, or one exec (process) per command. */
  via?: 'channel' | 'exec';
  /** The shell mode that ran the command (a session was asked for but the backend ran it stateless: 'stateless'). */
  shell?: ShellMode;
  /** Session commands: the session's shell was lost (timed out, exited, replaced by exec); `note` says what was lost. */
  sessionRestarted?: { note: string };
}

/** How the verifier sees the agent's work: see ARCHITECTURE.md, "The verifier's trust rule". */
export type VerifierMode = 'fresh' | 'in-place';

/** What the sanitising transfer (or the in-place sweep) left out, in sandbox paths relative to the workdir. */
export interface TransferReport {
  /** Entries kept: folders, regular files, links that resolve inside the workspace. */
  kept: number;
  bytes: number;
  /** Each dropped entry with why (at most 50 listed; `droppedCount` has them all). */
  dropped: { path: string; reason: string }[];
  droppedCount: number;
}

/**
 * The agent's workspace after the sanitising transfer: a tar holding only folders, regular files (permission bits
 * only, owned by the agent user) and links that resolve to an entry inside it, links last. Opaque to the core.
 */
export interface WorkspaceArchive {
  tar: Uint8Array;
  report: TransferReport;
}

/**
 * The operations verification needs, on every backend. Every one acts through the sandbox's own commands (tar,
 * cat, kill run inside it); none opens a path inside the sandbox from the host.
 */
export interface SandboxVerification {
  /** Ends every process the agent user started in this sandbox (forks included); agent commands after it still work. */
  endAgentProcesses(options?: { signal?: Cancellation }): Promise<void>;
  /** `tar -c` of the workdir made inside the sandbox (links archived, never followed), then sanitised on the host. */
  exportWorkspace(options?: { signal?: Cancellation }): Promise<WorkspaceArchive>;
  /** Extracts a sanitised archive into this sandbox's (empty) workdir with `tar -x` inside it. */
  importWorkspace(archive: WorkspaceArchive, options?: { signal?: Cancellation }): Promise<void>;
  /** In place: removes, inside the sandbox, links whose target leaves the workdir or dangles, FIFOs, sockets and devices. */
  sweepWorkspace(options?: { signal?: Cancellation }): Promise<TransferReport>;
  /** Empties /tests and /logs/verifier (inside the sandbox, following no link). */
  resetVerifierDirs(options?: { signal?: Cancellation }): Promise<void>;
  /**
   * What the agent left in /logs/agent and /logs/artifacts (Harbor's folders), read through the sandbox as data:
   * regular files only, bounded. Backends without those folders leave it out.
   */
  collectLogs?(options?: { signal?: Cancellation }): Promise<CollectedLogs>;
}

/** Files of /logs/agent and /logs/artifacts, as the rollout record keeps them. */
export interface CollectedLogs {
  /** Paths relative to /logs (`agent/...`, `artifacts/...`); text as UTF-8, anything else as base64. */
  files: { path: string; bytes: number; encoding: 'utf8' | 'base64'; content: string }[];
  /** Entries left out (links, special files, past the caps), with why. */
  dropped: { path: string; reason: string }[];
}

export interface Sandbox extends SandboxVerification {
  readonly id: string;
  readonly backend: SandboxBackendName;
  /** Where this sandbox runs (a Docker host URL, "local"). */
  readonly host: string;
  exec(command: Command, options?: ExecOptions): Promise<ExecResult>;
  /** Writes files under the workdir (default) or under /tests (verifier files), through the sandbox. */
  putFiles(files: SandboxFile[], options?: { signal?: Cancellation; under?: 'workspace' | 'tests' }): Promise<void>;
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
/** Which command makes an image: task images come from their task's Dockerfile, base images from build-image. */
export function buildHint(image: string): string {
  if (image.startsWith('coevolve-task/')) return `It is a task image: build it with \`coevolve sandbox build <the environment spec or its task folder>\` (no registry needed).`;
  return `Build the base images with \`coevolve sandbox build-image --variant busybox\` (or --variant debian, --variant python), or build/load "${image}" on that host yourself.`;
}

export class SandboxImageMissingError extends Error {
  constructor(readonly image: string, readonly host: string) {
    super(`image "${image}" is not on Docker host ${host}, and sandboxes never pull images. ${buildHint(image)}`);
    this.name = 'SandboxImageMissingError';
  }
}

/**
 * The sandbox stopped working in a way its contents could have caused: a container that died after the agent
 * acted, a workspace the transfer refuses, a full disk, a command that could not be stopped. After the agent's
 * first command this makes the rollout a failed one, never an infrastructure error. The message names sandbox
 * paths only.
 */
export class SandboxFaultError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SandboxFaultError';
  }
}
