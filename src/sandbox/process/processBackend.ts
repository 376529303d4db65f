import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Cancellation } from '../../core/ports/cancellation.js';
import { throwIfCancelled } from '../../core/ports/cancellation.js';
import type { Command, ExecOptions, ExecResult, Sandbox, SandboxBackend, SandboxRequest } from '../../core/ports/sandbox.js';
import type { SandboxFile } from '../../core/spec/environment.js';
import { commandArgv } from '../commandArgv.js';
import { spawnCommand } from '../local/spawnCommand.js';
import { createWorkspaceDir, hostPathOf, readIfExists, removeDir, writeWorkspaceFiles } from '../local/workspaceDir.js';
import { runSetup } from '../setup.js';

export const processBackendWarning =
  'the "process" sandbox backend is NOT a sandbox: commands run as your user on this machine with full access to its files and network. Use it only for development with trusted tasks; choose "docker" or "bwrap" otherwise.';

export interface ProcessBackendOptions {
  /** Where the unsandboxed warning goes; every start repeats it so it cannot scroll away unseen. */
  warn?: (message: string) => void;
}

/**
 * Unsandboxed: each command is a host shell in a temporary workspace folder, with ulimits and a process-group kill.
 * The workdir and /tmp of the spec are mapped to host folders for getFile and as $COEVOLVE_WORKDIR/$TMPDIR, but a
 * command that names an absolute path reaches the real host path.
 */
export class ProcessBackend implements SandboxBackend {
  readonly name = 'process' as const;
  private readonly warn: (message: string) => void;
  private readonly live = new Set<ProcessSandbox>();

  constructor(options: ProcessBackendOptions = {}) {
    this.warn = options.warn ?? ((m) => process.stderr.write(`coevolve: warning: ${m}\n`));
    this.warn(processBackendWarning);
  }

  async start(request: SandboxRequest, options: { signal?: Cancellation } = {}): Promise<Sandbox> {
    throwIfCancelled(options.signal);
    this.warn(`starting an unsandboxed "process" sandbox for ${request.labels['coevolve.rollout'] ?? 'a command'}`);
    const root = await createWorkspaceDir();
    const sandbox = new ProcessSandbox(root, request, () => this.live.delete(sandbox));
    this.live.add(sandbox);
    try {
      await mkdir(sandbox.tmpDir, { recursive: true });
      await writeWorkspaceFiles(root, request.files);
      await runSetup(sandbox, request, options.signal);
      return sandbox;
    } catch (err) {
      await sandbox.stop();
      throw err;
    }
  }

  async dispose(): Promise<void> {
    await Promise.all([...this.live].map((s) => s.stop()));
  }
}

class ProcessSandbox implements Sandbox {
  readonly id = `process-${randomUUID().slice(0, 8)}`;
  readonly backend = 'process' as const;
  readonly host = 'local (unsandboxed)';
  readonly tmpDir: string;
  private stopped = false;

  constructor(readonly root: string, private readonly request: SandboxRequest, private readonly onStop: () => void) {
    this.tmpDir = join(root, '.coevolve-tmp');
  }

  exec(command: Command, options: ExecOptions = {}): Promise<ExecResult> {
    if (this.stopped) return Promise.reject(new Error(`sandbox ${this.id} is stopped`));
    const limits = this.request.limits;
    const cwd = options.cwd ? (hostPathOf(this.root, this.request.workdir, options.cwd) ?? options.cwd) : this.root;
    // No ulimit -u: it counts every process of the user on the host, not just this command's.
    const guard = `ulimit -v ${limits.memoryMb * 1024} 2>/dev/null; ulimit -f ${limits.diskMb * 2048} 2>/dev/null;`;
    return spawnCommand({
      argv: ['/bin/sh', '-c', `${guard} exec "$@"`, 'sh', ...commandArgv(command)],
      cwd,
      env: {
        PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
        HOME: this.root,
        LANG: 'C.UTF-8',
        TMPDIR: this.tmpDir,
        COEVOLVE_WORKDIR: this.root,
        ...this.request.env,
        ...options.env,
      },
      stdin: options.stdin,
      timeoutMs: options.timeoutMs ?? limits.commandTimeoutSec * 1000,
      maxOutputBytes: options.maxOutputBytes ?? limits.maxOutputBytes,
      signal: options.signal,
    });
  }

  async putFiles(files: SandboxFile[]): Promise<void> {
    await writeWorkspaceFiles(this.root, files);
  }

  async getFile(path: string): Promise<Buffer | undefined> {
    const host = hostPathOf(this.root, this.request.workdir, path, { '/tmp': this.tmpDir }) ?? path;
    return readIfExists(host);
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.onStop();
    await removeDir(this.root);
  }
}
