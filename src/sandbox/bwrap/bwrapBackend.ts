import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Cancellation } from '../../core/ports/cancellation.js';
import { throwIfCancelled } from '../../core/ports/cancellation.js';
import type { Command, ExecOptions, ExecResult, Sandbox, SandboxBackend, SandboxRequest, TransferReport, WorkspaceArchive } from '../../core/ports/sandbox.js';
import { verifierPaths } from '../../core/ports/sandbox.js';
import type { SandboxFile } from '../../core/spec/environment.js';
import { rootfsDir, rootfsMarker, variantOfImage } from '../images/baseImages.js';
import { commandArgv, roleOf } from '../commandArgv.js';
import { spawnCommand } from '../local/spawnCommand.js';
import { createWorkspaceDir, removeDir } from '../local/workspaceDir.js';
import { exportWorkspaceInside, getFileInside, importWorkspaceInside, putFilesInside, resetVerifierDirsInside, sweepWorkspaceInside } from '../verification/inSandboxFiles.js';
import type { ByteExec, ExecResultWithBytes } from '../verification/inSandboxFiles.js';
import { canMountTmpfs, mountTmpfs, unmountUnder } from './tmpfsMounts.js';
import { runSetup } from '../setup.js';
import { CgroupLimits } from './cgroupLimits.js';

export interface BwrapBackendOptions {
  /** Root folder for every sandbox; default: the exported base image matching the spec's image, else the host /usr. */
  rootfs?: string;
  /** Path of the bwrap binary (default: bwrap on PATH). */
  bwrap?: string;
  /** Use cgroup v1 memory/pids/cpu limits (default: when running as root and available). */
  cgroups?: boolean;
}

/** The sandbox's host folders and their modes: workspace, /tmp, and the verifier's /tests and /logs/verifier. */
const folderModes: Record<string, number> = { ws: 0o755, tmp: 0o1777, tests: 0o755, logs: 0o755 };

/** Unmounts the sandbox's tmpfs mounts, then removes its folder (no process uses it any more). */
export async function removeSandboxDir(dir: string): Promise<void> {
  unmountUnder(dir);
  await removeDir(dir);
}

/**
 * A read-only root needs the bind targets to exist. Roots built before the verifier's folders existed get them
 * here: the root folder is ours and never writable from a sandbox (it is bound read-only), so no link is followed.
 */
async function ensureMountPoints(rootfs: string, workdir: string): Promise<void> {
  if (!existsSync(join(rootfs, workdir))) {
    throw new Error(`the rootfs ${rootfs} has no ${workdir}; bwrap needs the workdir to exist in a read-only root. Create it, or rebuild with \`coevolve sandbox build-image\``);
  }
  for (const p of [verifierPaths.tests, verifierPaths.logs]) {
    if (existsSync(join(rootfs, p))) continue;
    try {
      await mkdir(join(rootfs, p), { recursive: true, mode: 0o755 });
    } catch (err) {
      throw new Error(`the rootfs ${rootfs} has no ${p} and it cannot be created (${(err as Error).message}); rebuild it with \`coevolve sandbox build-image --force\``);
    }
  }
}

/** What a sandbox's root is: an exported image folder, or a read-only view of the host's /usr. */
type RootView = { kind: 'rootfs'; dir: string } | { kind: 'host-usr' };

/**
 * One bubblewrap process per command, all sharing a sandbox's host folders for the workspace and /tmp: no network,
 * private pid/ipc/uts namespaces, uid 65534 in a user namespace, read-only root, rlimits via prlimit and, as root,
 * cgroup limits. A timeout kills the whole process group; --die-with-parent takes the namespace down with it.
 */
export class BwrapBackend implements SandboxBackend {
  readonly name = 'bwrap' as const;
  private readonly live = new Set<BwrapSandbox>();

  constructor(private readonly options: BwrapBackendOptions = {}) {}

  rootViewFor(image: string): RootView {
    if (this.options.rootfs) return { kind: 'rootfs', dir: this.options.rootfs };
    const variant = variantOfImage(image);
    if (variant && existsSync(join(rootfsDir(variant), rootfsMarker))) return { kind: 'rootfs', dir: rootfsDir(variant) };
    return { kind: 'host-usr' };
  }

  async start(request: SandboxRequest, options: { signal?: Cancellation } = {}): Promise<Sandbox> {
    throwIfCancelled(options.signal);
    const view = this.rootViewFor(request.image);
    if (view.kind === 'rootfs') await ensureMountPoints(view.dir, request.workdir);
    const dir = await createWorkspaceDir();
    const id = `bwrap-${randomUUID().slice(0, 8)}`;
    const useCgroups = this.options.cgroups ?? CgroupLimits.available();
    let sandbox: BwrapSandbox | undefined;
    try {
      // Made before the sandbox's first command; commands get these subfolders bound, never `dir` itself, so no
      // sandbox can plant a link where the host creates or removes anything.
      const limited = canMountTmpfs();
      for (const [sub, mode] of Object.entries(folderModes)) {
        await mkdir(join(dir, sub), { mode });
        if (limited) mountTmpfs(join(dir, sub), request.limits.diskMb, mode);
        await chmod(join(dir, sub), mode);
      }
      const cgroup = useCgroups ? await CgroupLimits.create(id, request.limits) : undefined;
      sandbox = new BwrapSandbox(id, dir, view, request, this.options.bwrap ?? 'bwrap', cgroup, () => this.live.delete(sandbox as BwrapSandbox));
      this.live.add(sandbox);
      await sandbox.putFiles(request.files, options);
      await runSetup(sandbox, request, options.signal);
      return sandbox;
    } catch (err) {
      if (sandbox) await sandbox.stop();
      else await removeSandboxDir(dir);
      throw err;
    }
  }

  async dispose(): Promise<void> {
    await Promise.all([...this.live].map((s) => s.stop()));
  }
}

export class BwrapSandbox implements Sandbox, ByteExec {
  readonly backend = 'bwrap' as const;
  readonly host = 'local';
  private stopped = false;

  constructor(
    readonly id: string,
    private readonly dir: string,
    private readonly view: RootView,
    private readonly request: SandboxRequest,
    private readonly bwrap: string,
    private readonly cgroup: CgroupLimits | undefined,
    private readonly onStop: () => void,
  ) {}

  private get workspace(): string {
    return join(this.dir, 'ws');
  }


  /** The full command line that runs `command` in this sandbox; `exec` runs it, `coevolve sandbox shell` attaches a TTY. */
  argvFor(command: Command, options: Pick<ExecOptions, 'cwd' | 'env' | 'privileged' | 'as'> & { interactive?: boolean } = {}): string[] {
    const { limits, workdir } = this.request;
    const uid = roleOf(options) === 'agent' ? 65534 : 0;
    const env = { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', HOME: workdir, LANG: 'C.UTF-8', ...this.request.env, ...options.env, ...(options.interactive ? { TERM: process.env.TERM ?? 'xterm' } : {}) };
    const rootArgs = this.view.kind === 'rootfs'
      ? ['--ro-bind', this.view.dir, '/']
      : ['--ro-bind', '/usr', '/usr', '--symlink', 'usr/bin', '/bin', '--symlink', 'usr/sbin', '/sbin', '--symlink', 'usr/lib', '/lib',
        '--symlink', 'usr/lib64', '/lib64', ...(existsSync('/etc/alternatives') ? ['--ro-bind', '/etc/alternatives', '/etc/alternatives'] : []),
        ...(existsSync('/etc/ld.so.cache') ? ['--ro-bind', '/etc/ld.so.cache', '/etc/ld.so.cache'] : [])];
    const bwrapArgs = [
      ...rootArgs,
      '--proc', '/proc', '--dev', '/dev',
      '--bind', join(this.dir, 'tmp'), '/tmp',
      '--bind', this.workspace, workdir,
      // Only verifier commands see the verifier's folders (the trust rule's I1): agent and setup commands never do.
      ...(roleOf(options) === 'verifier' ? ['--bind', join(this.dir, 'tests'), verifierPaths.tests, '--bind', join(this.dir, 'logs'), verifierPaths.logs] : []),
      '--chdir', options.cwd ?? workdir,
      '--unshare-all', '--unshare-user', '--uid', String(uid), '--gid', String(uid),
      // --new-session stops a command from pushing input into the caller's terminal; a shell needs the terminal.
      '--cap-drop', 'ALL', '--die-with-parent', ...(options.interactive ? [] : ['--new-session']), '--hostname', 'sandbox',
      '--clearenv', ...Object.entries(env).flatMap(([k, v]) => ['--setenv', k, v]),
      '--', ...(options.interactive ? ['/bin/sh', '-i'] : commandArgv(command)),
    ];
    // With cgroups the kernel enforces memory exactly; rlimits on address space are the fallback without root.
    const rlimits = [`--fsize=${limits.diskMb * 1024 * 1024}`, `--nproc=${limits.pids}`, ...(this.cgroup ? [] : [`--as=${limits.memoryMb * 1024 * 1024}`])];
    const inner = ['prlimit', ...rlimits, '--', this.bwrap, ...bwrapArgs];
    return this.cgroup ? ['/bin/sh', '-c', `${this.cgroup.joinScript()} && exec "$@"`, 'sh', ...inner] : inner;
  }

  async exec(command: Command, options: ExecOptions = {}): Promise<ExecResult> {
    const { stdoutBytes: _bytes, ...result } = await this.execBytes(command, options);
    return result;
  }

  execBytes(command: Command, options: ExecOptions = {}): Promise<ExecResultWithBytes> {
    if (this.stopped) return Promise.reject(new Error(`sandbox ${this.id} is stopped`));
    const { limits } = this.request;
    const argv = this.argvFor(command, options);
    return spawnCommand({
      argv,
      cwd: this.dir,
      env: { PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin' },
      stdin: options.stdin,
      timeoutMs: options.timeoutMs ?? limits.commandTimeoutSec * 1000,
      maxOutputBytes: options.maxOutputBytes ?? limits.maxOutputBytes,
      signal: options.signal,
    });
  }

  async putFiles(files: SandboxFile[], options: { signal?: Cancellation; under?: 'workspace' | 'tests' } = {}): Promise<void> {
    const under = options.under ?? 'workspace';
    await putFilesInside(this, files, under === 'tests' ? verifierPaths.tests : this.request.workdir, under, options.signal);
  }

  async getFile(path: string, options: { signal?: Cancellation } = {}): Promise<Buffer | undefined> {
    const full = path.startsWith('/') ? path : `${this.request.workdir.replace(/\/$/, '')}/${path}`;
    return getFileInside(this, full, 64 * 1024 * 1024, options.signal);
  }

  /**
   * Every command ran in its own pid namespace, which the kernel empties when the command ends, so no agent
   * process outlives its command; with cgroups, whatever is still in the sandbox's groups is killed as well.
   */
  async endAgentProcesses(): Promise<void> {
    await this.cgroup?.killAll();
  }

  exportWorkspace(options: { signal?: Cancellation } = {}): Promise<WorkspaceArchive> {
    return exportWorkspaceInside(this, this.request.workdir, this.request.limits, options.signal);
  }

  importWorkspace(archive: WorkspaceArchive, options: { signal?: Cancellation } = {}): Promise<void> {
    return importWorkspaceInside(this, archive, this.request.workdir, options.signal);
  }

  sweepWorkspace(options: { signal?: Cancellation } = {}): Promise<TransferReport> {
    return sweepWorkspaceInside(this, this.request.workdir, options.signal);
  }

  resetVerifierDirs(options: { signal?: Cancellation } = {}): Promise<void> {
    return resetVerifierDirsInside(this, options.signal);
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.onStop();
    await this.cgroup?.remove();
    await removeSandboxDir(this.dir);
  }
}
