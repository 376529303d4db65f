import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Cancellation } from '../../core/ports/cancellation.js';
import { throwIfCancelled } from '../../core/ports/cancellation.js';
import type { Command, ExecOptions, ExecResult, Sandbox, SandboxBackend, SandboxRequest, TransferReport, WorkspaceArchive } from '../../core/ports/sandbox.js';
import { SandboxFaultError, verifierPaths } from '../../core/ports/sandbox.js';
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
import { channelBinary } from '../channel/binary.js';
import { endAgentOnChannel, execOnChannel } from '../channel/channelExec.js';
import { channelBwrapArgs, startBwrapChannels } from './bwrapChannel.js';
import type { BwrapChannelProcess } from './bwrapChannel.js';

export interface BwrapBackendOptions {
  /** Root folder for every sandbox; default: the exported base image matching the spec's image, else the host /usr. */
  rootfs?: string;
  /** Path of the bwrap binary (default: bwrap on PATH). */
  bwrap?: string;
  /** Use cgroup v1 memory/pids/cpu limits (default: when running as root and available). */
  cgroups?: boolean;
  /**
   * Run commands through the command channel (default): one namespace set per sandbox with a supervisor in it.
   * false: one bwrap per command, the path before the channel (the fallback, and benchmarks' baseline).
   */
  channel?: boolean;
  /** Where "the command channel is not available" is said, once per backend. Default: stderr. */
  warn?: (message: string) => void;
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
  // /run: where the command channel's supervisor is bound (busybox roots built before it lack the folder).
  for (const p of [verifierPaths.tests, verifierPaths.logs, '/run']) {
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
 * One bubblewrap namespace set per sandbox with the command channel's supervisor in it, its folders tmpfs mounts of
 * that namespace; without the channel, one bubblewrap per command, all sharing the sandbox's host folders. Either
 * way: no network, private pid/ipc/uts namespaces, uid 65534 in a user namespace, read-only root, rlimits via
 * prlimit and, as root, cgroup limits. --die-with-parent takes the namespace down with its host process.
 */
export class BwrapBackend implements SandboxBackend {
  readonly name = 'bwrap' as const;
  private readonly live = new Set<BwrapSandbox>();
  private warned = false;

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
    const id = `bwrap-${randomUUID().slice(0, 8)}`;
    const useCgroups = this.options.cgroups ?? CgroupLimits.available();
    let sandbox: BwrapSandbox | undefined;
    try {
      // With the channel the sandbox's folders are tmpfs mounts inside its own mount namespace: no host folder, no
      // host mount, nothing on the host for a sandbox to plant a link in, and the size limit holds without root.
      const binary = await this.channelBinaryOrWarn();
      if (binary) {
        sandbox = await this.newSandbox(id, undefined, view, request, useCgroups);
        if (!(await this.attachChannel(sandbox, binary))) {
          await sandbox.stop();
          sandbox = undefined;
        }
      }
      sandbox ??= await this.newSandbox(id, await createHostFolders(request.limits.diskMb), view, request, useCgroups);
      await sandbox.putFiles(request.files, options);
      await runSetup(sandbox, request, options.signal);
      return sandbox;
    } catch (err) {
      await sandbox?.stop();
      throw err;
    }
  }

  async dispose(): Promise<void> {
    await Promise.all([...this.live].map((s) => s.stop()));
  }

  /** A sandbox object with its cgroups; `dir`: the per-command path's host folders (removed here if the cgroups fail). */
  private async newSandbox(id: string, dir: string | undefined, view: RootView, request: SandboxRequest, useCgroups: boolean): Promise<BwrapSandbox> {
    let cgroup: CgroupLimits | undefined;
    try {
      cgroup = useCgroups ? await CgroupLimits.create(id, request.limits) : undefined;
    } catch (err) {
      if (dir) await removeSandboxDir(dir);
      throw err;
    }
    const sandbox: BwrapSandbox = new BwrapSandbox(id, dir, view, request, this.options.bwrap ?? 'bwrap', cgroup, () => this.live.delete(sandbox));
    this.live.add(sandbox);
    return sandbox;
  }

  /** The supervisor binary, unless this backend runs every command as its own bwrap (asked for, or said once). */
  private async channelBinaryOrWarn(): Promise<string | undefined> {
    if (this.options.channel === false || this.warned) return undefined;
    try {
      return await channelBinary();
    } catch (err) {
      this.warn(err);
      return undefined;
    }
  }

  /** Starts the sandbox's channel; when it cannot (a root without what bwrap needs), says so once: every later sandbox runs each command as its own bwrap. */
  private async attachChannel(sandbox: BwrapSandbox, binary: string): Promise<boolean> {
    try {
      await sandbox.startChannel(binary);
      return true;
    } catch (err) {
      this.warn(err);
      return false;
    }
  }

  private warn(err: unknown): void {
    // Said once, and not tried again by this backend: what failed here fails the same way for every sandbox.
    if (this.warned) return;
    this.warned = true;
    (this.options.warn ?? ((m: string) => process.stderr.write(`coevolve: ${m}\n`)))(`the command channel is not available (${(err as Error).message}); every command runs as its own bwrap, which is slower`);
  }
}

/**
 * The per-command path's host folders, made before the sandbox's first command: commands get these subfolders
 * bound, never the folder itself, so no sandbox can plant a link where the host creates or removes anything.
 */
async function createHostFolders(diskMb: number): Promise<string> {
  const dir = await createWorkspaceDir();
  try {
    const limited = canMountTmpfs();
    for (const [sub, mode] of Object.entries(folderModes)) {
      await mkdir(join(dir, sub), { mode });
      if (limited) mountTmpfs(join(dir, sub), diskMb, mode);
      await chmod(join(dir, sub), mode);
    }
    return dir;
  } catch (err) {
    await removeSandboxDir(dir);
    throw err;
  }
}

export class BwrapSandbox implements Sandbox, ByteExec {
  readonly backend = 'bwrap' as const;
  readonly host = 'local';
  private stopped = false;
  private lost: Error | undefined;
  private channel: BwrapChannelProcess | undefined;
  /**
   * Whether a verifier command was started on the channel. Until one is, /tests and /logs/verifier are still the
   * empty tmpfs mounts bwrap made at start: every other command sees only empty read-only covers of them.
   */
  private verifierRan = false;

  constructor(
    readonly id: string,
    /** The per-command path's host folders; undefined with the channel, whose folders exist only in its namespace. */
    private readonly dir: string | undefined,
    private readonly view: RootView,
    private readonly request: SandboxRequest,
    private readonly bwrap: string,
    private readonly cgroup: CgroupLimits | undefined,
    private readonly onStop: () => void,
  ) {}

  private hostDir(): string {
    if (this.dir === undefined) throw new Error(`sandbox ${this.id} runs its commands through its channel: its folders exist only inside it (start it with channel: false for a per-command bwrap)`);
    return this.dir;
  }

  /** The root of the sandbox's view: the exported image folder read-only, or the host's /usr read-only. */
  private rootArgs(): string[] {
    return this.view.kind === 'rootfs'
      ? ['--ro-bind', this.view.dir, '/']
      : ['--ro-bind', '/usr', '/usr', '--symlink', 'usr/bin', '/bin', '--symlink', 'usr/sbin', '/sbin', '--symlink', 'usr/lib', '/lib',
        '--symlink', 'usr/lib64', '/lib64', ...(existsSync('/etc/alternatives') ? ['--ro-bind', '/etc/alternatives', '/etc/alternatives'] : []),
        ...(existsSync('/etc/ld.so.cache') ? ['--ro-bind', '/etc/ld.so.cache', '/etc/ld.so.cache'] : [])];
  }

  /** The sandbox's own folders; the verifier's only when asked (agent and setup commands never see them, I1). */
  private binds(withVerifier: boolean): string[] {
    const folders: [string, string][] = [['tmp', '/tmp'], ['ws', this.request.workdir], ...(withVerifier ? [['tests', verifierPaths.tests], ['logs', verifierPaths.logs]] as [string, string][] : [])];
    if (this.dir === undefined) {
      // tmpfs mounts of the namespace set itself (bwrap mounts them nosuid,nodev), each of diskMb like the host's.
      const bytes = String(this.request.limits.diskMb * 1024 * 1024);
      return folders.flatMap(([sub, target]) => ['--size', bytes, '--perms', (folderModes[sub] as number).toString(8).padStart(4, '0'), '--tmpfs', target]);
    }
    const dir = this.dir;
    return folders.flatMap(([sub, target]) => ['--bind', join(dir, sub), target]);
  }

  private baseEnv(extra: Record<string, string> = {}): Record<string, string> {
    return { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', HOME: this.request.workdir, LANG: 'C.UTF-8', ...this.request.env, ...extra };
  }

  /**
   * rlimits (and, as root, the sandbox's cgroups) around a bwrap invocation: through the channel binary's launcher
   * when there is one (one static exec), else prlimit and a shell that joins the cgroups.
   */
  private limited(bwrapArgs: string[], launcher?: string): string[] {
    const { limits } = this.request;
    // With cgroups the kernel enforces memory exactly; rlimits on address space are the fallback without root.
    const rlimits = [`fsize=${limits.diskMb * 1024 * 1024}`, `nproc=${limits.pids}`, ...(this.cgroup ? [] : [`as=${limits.memoryMb * 1024 * 1024}`])];
    if (launcher) {
      const joins = (this.cgroup?.procsFiles() ?? []).flatMap((f) => ['--join', f]);
      return [launcher, '--launch', ...rlimits.flatMap((r) => ['--rlimit', r]), ...joins, '--', this.bwrap, ...bwrapArgs];
    }
    const inner = ['prlimit', ...rlimits.map((r) => `--${r}`), '--', this.bwrap, ...bwrapArgs];
    return this.cgroup ? ['/bin/sh', '-c', `${this.cgroup.joinScript()} && exec "$@"`, 'sh', ...inner] : inner;
  }

  /** The full command line that runs `command` in this sandbox on its own (the fallback path, and `coevolve sandbox shell`'s TTY). */
  argvFor(command: Command, options: Pick<ExecOptions, 'cwd' | 'env' | 'privileged' | 'as'> & { interactive?: boolean } = {}): string[] {
    const { workdir } = this.request;
    this.hostDir();
    const uid = roleOf(options) === 'agent' ? 65534 : 0;
    const env = this.baseEnv({ ...options.env, ...(options.interactive ? { TERM: process.env.TERM ?? 'xterm' } : {}) });
    const bwrapArgs = [
      ...this.rootArgs(),
      '--proc', '/proc', '--dev', '/dev',
      ...this.binds(roleOf(options) === 'verifier'),
      '--chdir', options.cwd ?? workdir,
      '--unshare-all', '--unshare-user', '--uid', String(uid), '--gid', String(uid),
      // --new-session stops a command from pushing input into the caller's terminal; a shell needs the terminal.
      '--cap-drop', 'ALL', '--die-with-parent', ...(options.interactive ? [] : ['--new-session']), '--hostname', 'sandbox',
      '--clearenv', ...Object.entries(env).flatMap(([k, v]) => ['--setenv', k, v]),
      '--', ...(options.interactive ? ['/bin/sh', '-i'] : commandArgv(command)),
    ];
    return this.limited(bwrapArgs);
  }

  /** Whether commands go through the command channel (tests assert it, with each result's `via`). */
  get hasChannel(): boolean {
    return this.channel !== undefined;
  }

  /** The host pid of the namespace set's outermost process (prlimit/bwrap), while the channel runs. */
  get channelPid(): number | undefined {
    return this.channel?.pid;
  }

  /**
   * Starts the sandbox's namespace set with the supervisor in it; from then on every command uses its channels.
   * A supervisor that ends while the sandbox is up makes the sandbox unusable, as a fault of its contents.
   */
  async startChannel(binary: string): Promise<void> {
    const argv = this.limited(channelBwrapArgs({ rootArgs: this.rootArgs(), binds: this.binds(true), workdir: this.request.workdir, env: this.baseEnv() }, binary), binary);
    this.channel = await startBwrapChannels(argv, this.dir ?? '/', `sandbox ${this.id}`, {
      onDead: (reason) => {
        if (!this.stopped) this.lost ??= new SandboxFaultError(`the sandbox's command channel ended (${reason}); the sandbox cannot run commands any more`);
      },
      onStuck: () => {
        this.lost ??= new SandboxFaultError(`sandbox ${this.id} was removed because a command could not be stopped any other way`);
        this.stop().catch(() => undefined);
      },
    });
  }

  async exec(command: Command, options: ExecOptions = {}): Promise<ExecResult> {
    const { stdoutBytes: _bytes, ...result } = await this.execBytes(command, options);
    return result;
  }

  execBytes(command: Command, options: ExecOptions = {}): Promise<ExecResultWithBytes> {
    if (this.lost) return Promise.reject(this.lost);
    if (this.stopped) return Promise.reject(new Error(`sandbox ${this.id} is stopped`));
    const { limits } = this.request;
    const defaults = { workdir: this.request.workdir, timeoutMs: limits.commandTimeoutSec * 1000, maxOutputBytes: limits.maxOutputBytes };
    if (this.channel) {
      if (roleOf(options) === 'verifier') this.verifierRan = true;
      return execOnChannel(this.channel.channels, command, options, defaults, () => this.lost);
    }
    return this.execPerCommand(command, options);
  }

  /** One bwrap for this command, the path before the channel: the fallback, and benchmarks' baseline. */
  execPerCommand(command: Command, options: ExecOptions = {}): Promise<ExecResultWithBytes> {
    if (this.stopped) return Promise.reject(new Error(`sandbox ${this.id} is stopped`));
    const { limits } = this.request;
    const argv = this.argvFor(command, options);
    return spawnCommand({
      argv,
      cwd: this.hostDir(),
      env: { PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin' },
      stdin: options.stdin,
      timeoutMs: options.timeoutMs ?? limits.commandTimeoutSec * 1000,
      maxOutputBytes: options.maxOutputBytes ?? limits.maxOutputBytes,
      signal: options.signal,
    }).then((r) => ({ ...r, via: 'exec' as const, shell: 'stateless' as const }));
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
    if (this.lost) throw this.lost;
    if (this.channel) {
      // The supervisor is in the cgroups too: end the agent's commands and session through it instead.
      if (!(await endAgentOnChannel(this.channel.channels, () => this.lost))) throw new SandboxFaultError('the agent\'s processes could not all be ended');
      return;
    }
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
    // A sandbox whose channel never ran a verifier command (the verifier's fresh sandbox) has nothing to empty: its
    // folders are as bwrap made them, so the command that would empty them is saved (one per verified rollout).
    if (this.channel && !this.verifierRan) return Promise.resolve();
    return resetVerifierDirsInside(this, options.signal);
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.onStop();
    await this.channel?.stop();
    await this.cgroup?.remove();
    if (this.dir !== undefined) await removeSandboxDir(this.dir);
  }
}
