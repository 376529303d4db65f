import { randomUUID } from 'node:crypto';
import { mkdir, readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Cancellation } from '../../core/ports/cancellation.js';
import { throwIfCancelled } from '../../core/ports/cancellation.js';
import type { Command, ExecOptions, ExecResult, Sandbox, SandboxBackend, SandboxRequest, TransferReport, WorkspaceArchive } from '../../core/ports/sandbox.js';
import { verifierPaths } from '../../core/ports/sandbox.js';
import type { SandboxFile } from '../../core/spec/environment.js';
import { commandArgv, roleOf } from '../commandArgv.js';
import { spawnCommand } from '../local/spawnCommand.js';
import { createWorkspaceDir, hostPathOf, removeDir } from '../local/workspaceDir.js';
import { exportWorkspaceInside, getFileInside, importWorkspaceInside, putFilesInside, resetVerifierDirsInside, sweepWorkspaceInside } from '../verification/inSandboxFiles.js';
import type { ByteExec, ExecResultWithBytes } from '../verification/inSandboxFiles.js';
import { runSetup } from '../setup.js';

export const processBackendWarning =
  'the "process" sandbox backend is NOT a sandbox: commands run as your user on this machine with full access to its files and network. Use it only for development with trusted tasks; choose "docker" or "bwrap" otherwise.';

export interface ProcessBackendOptions {
  /** Where the unsandboxed warning goes; every start repeats it so it cannot scroll away unseen. */
  warn?: (message: string) => void;
}

/** The PATH every process-backend command gets; nothing else of this process's environment reaches a command. */
const cleanPath = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
/** Every process of a sandbox carries this variable, so processes that left the process group (setsid) are found. */
const markerVariable = 'COEVOLVE_SANDBOX';

/**
 * Unsandboxed: each command is a host shell in a temporary workspace folder, with ulimits, a clean environment and
 * a kill of everything it started. The workdir, /tmp, /tests and /logs/verifier of the spec are host folders of the
 * sandbox; verifier commands see /tests and /logs/verifier written as those folders. A command that names any
 * other absolute path reaches the real host path.
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
    const dir = await createWorkspaceDir();
    const sandbox = new ProcessSandbox(dir, request, () => this.live.delete(sandbox));
    this.live.add(sandbox);
    try {
      for (const sub of ['ws', 'tmp', 'tests', 'logs']) await mkdir(join(dir, sub));
      await sandbox.putFiles(request.files);
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

class ProcessSandbox implements Sandbox, ByteExec {
  readonly id = `process-${randomUUID().slice(0, 8)}`;
  readonly backend = 'process' as const;
  readonly host = 'local (unsandboxed)';
  readonly unsandboxed = true;
  private stopped = false;

  constructor(private readonly dir: string, private readonly request: SandboxRequest, private readonly onStop: () => void) {}

  private get root(): string {
    return join(this.dir, 'ws');
  }

  private get paths(): Record<string, string> {
    return { '/tmp': join(this.dir, 'tmp'), [verifierPaths.tests]: join(this.dir, 'tests'), [verifierPaths.logs]: join(this.dir, 'logs') };
  }

  async exec(command: Command, options: ExecOptions = {}): Promise<ExecResult> {
    const { stdoutBytes: _bytes, ...result } = await this.execBytes(command, options);
    return result;
  }

  execBytes(command: Command, options: ExecOptions = {}): Promise<ExecResultWithBytes> {
    if (this.stopped) return Promise.reject(new Error(`sandbox ${this.id} is stopped`));
    const limits = this.request.limits;
    const cwd = options.cwd ? (hostPathOf(this.root, this.request.workdir, options.cwd) ?? options.cwd) : this.root;
    // No ulimit -u: it counts every process of the user on the host, not just this command's.
    const guard = `ulimit -v ${limits.memoryMb * 1024} 2>/dev/null; ulimit -f ${limits.diskMb * 2048} 2>/dev/null;`;
    const argv = commandArgv(command);
    return spawnCommand({
      argv: ['/bin/sh', '-c', `${guard} exec "$@"`, 'sh', ...(roleOf(options) === 'verifier' ? argv.map((w) => rewriteVerifierPaths(w, this.paths)) : argv)],
      cwd,
      env: {
        PATH: cleanPath,
        HOME: this.root,
        LANG: 'C.UTF-8',
        TMPDIR: join(this.dir, 'tmp'),
        COEVOLVE_WORKDIR: this.root,
        ...this.request.env,
        ...options.env,
        [markerVariable]: this.id,
      },
      stdin: options.stdin,
      timeoutMs: options.timeoutMs ?? limits.commandTimeoutSec * 1000,
      maxOutputBytes: options.maxOutputBytes ?? limits.maxOutputBytes,
      signal: options.signal,
    });
  }

  async putFiles(files: SandboxFile[], options: { signal?: Cancellation; under?: 'workspace' | 'tests' } = {}): Promise<void> {
    const under = options.under ?? 'workspace';
    await putFilesInside(this, files, under === 'tests' ? join(this.dir, 'tests') : this.root, under, options.signal);
  }

  async getFile(path: string, options: { signal?: Cancellation } = {}): Promise<Buffer | undefined> {
    const host = hostPathOf(this.root, this.request.workdir, path, this.paths) ?? path;
    return getFileInside(this, host, 64 * 1024 * 1024, options.signal);
  }

  async endAgentProcesses(): Promise<void> {
    await killMarked(this.id);
  }

  exportWorkspace(options: { signal?: Cancellation } = {}): Promise<WorkspaceArchive> {
    return exportWorkspaceInside(this, this.root, this.request.limits, options.signal);
  }

  importWorkspace(archive: WorkspaceArchive, options: { signal?: Cancellation } = {}): Promise<void> {
    return importWorkspaceInside(this, archive, this.root, options.signal);
  }

  sweepWorkspace(options: { signal?: Cancellation } = {}): Promise<TransferReport> {
    return sweepWorkspaceInside(this, this.root, options.signal);
  }

  resetVerifierDirs(options: { signal?: Cancellation } = {}): Promise<void> {
    return resetVerifierDirsInside(this, options.signal);
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.onStop();
    await killMarked(this.id);
    await removeDir(this.dir);
  }
}

/** /tests and /logs/verifier, as whole path prefixes in a verifier command's words, become the sandbox's folders. */
export function rewriteVerifierPaths(word: string, paths: Record<string, string>): string {
  let out = word;
  for (const [from, to] of Object.entries(paths)) {
    if (from === '/tmp') continue;
    out = out.replace(new RegExp(`(^|[^A-Za-z0-9_./-])${from.replace(/[/]/g, '\\/')}(?=$|[^A-Za-z0-9_.-])`, 'g'), (_m, pre: string) => `${pre}${to}`);
  }
  return out;
}

/** Kills every process whose environment carries the sandbox's marker (Linux /proc), until none is left. */
async function killMarked(id: string): Promise<void> {
  if (process.platform !== 'linux') return;
  const needle = Buffer.from(`\0${markerVariable}=${id}\0`);
  for (let round = 0; round < 50; round++) {
    let found = 0;
    for (const entry of await readdir('/proc').catch(() => [] as string[])) {
      if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
      const environ = await readFile(`/proc/${entry}/environ`).catch(() => undefined);
      if (!environ || !Buffer.concat([Buffer.from([0]), environ]).includes(needle)) continue;
      found++;
      try {
        process.kill(Number(entry), 'SIGKILL');
      } catch {
        // gone already
      }
    }
    if (found === 0) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}
