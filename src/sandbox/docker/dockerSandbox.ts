import { Writable } from 'node:stream';
import type { Duplex } from 'node:stream';
import type Docker from 'dockerode';
import { CancelledError, throwIfCancelled } from '../../core/ports/cancellation.js';
import type { Cancellation } from '../../core/ports/cancellation.js';
import { SandboxFaultError, SandboxHostLostError, verifierPaths } from '../../core/ports/sandbox.js';
import type { CollectedLogs, Command, ExecOptions, ExecResult, Sandbox, TransferReport, WorkspaceArchive } from '../../core/ports/sandbox.js';
import type { SandboxFile } from '../../core/spec/environment.js';
import { roleOf } from '../commandArgv.js';
import { CappedOutput } from '../outputCap.js';
import { isConnectionError } from './connect.js';
import type { SandboxShape } from './dockerBackend.js';
import { collectLogsInside, exportWorkspaceInside, getFileInside, importWorkspaceInside, putFilesInside, resetVerifierDirsInside, sweepWorkspaceInside } from '../verification/inSandboxFiles.js';
import type { ByteExec, ExecResultWithBytes } from '../verification/inSandboxFiles.js';
import { agentUid } from './tarFiles.js';
import type { ChannelClient } from '../channel/client.js';
import { drainPerCommandExec, killGroupScript, openPerCommandExec, perCommandPlan, perCommandResult } from './perCommandExec.js';
import { endAgentOnChannel, execOnChannel, sandboxCwd } from '../channel/channelExec.js';
import type { SandboxChannels } from '../channel/channelExec.js';
import { firstFingerprint, scrubContainer } from './recycle.js';

/** How long a dead channel's daemon may take to answer a ping before the host counts as lost. */
const pingTimeoutMs = 5000;

class PingTimeout extends Error {}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new PingTimeout(`no answer within ${ms} ms`)), ms)))]).finally(() => clearTimeout(timer));
}

/** Builtins only (no fork), so the check itself adds no process of the agent user. */
const endAgentScript = `self=$$; i=0
while [ "$i" -lt 300 ]; do
  kill -9 -1 2>/dev/null
  left=0
  for d in /proc/[0-9]*; do
    [ "\${d#/proc/}" = "$self" ] && continue
    u=; st=
    while read -r k v _; do case $k in State:) st=$v;; Uid:) u=$v; break;; esac; done 2>/dev/null < "$d/status"
    if [ "$u" = "$1" ] && [ "$st" != Z ]; then left=1; break; fi
  done
  [ "$left" = 0 ] && exit 0
  i=$((i+1))
done
exit 1`;

/**
 * Root agents: kill every process but the recorded system ones ("$@") and this script, until none is left but
 * zombies. Builtins only, so the check forks nothing.
 */
const endRootAgentScript = `self=$$; i=0
while [ "$i" -lt 300 ]; do
  left=0
  for d in /proc/[0-9]*; do
    p=\${d#/proc/}
    [ "$p" = "$self" ] || [ "$p" = "$PPID" ] && continue
    keep=0
    for s in "$@"; do [ "$p" = "$s" ] && { keep=1; break; }; done
    [ "$keep" = 1 ] && continue
    st=
    while read -r k v _; do case $k in State:) st=$v; break;; esac; done 2>/dev/null < "$d/status"
    [ -z "$st" ] || [ "$st" = Z ] && continue
    kill -9 "$p" 2>/dev/null
    left=1
  done
  [ "$left" = 0 ] && exit 0
  i=$((i+1))
done
for d in /proc/[0-9]*; do n=; st=; while read -r k v _; do case $k in Name:) n=$v;; State:) st=$v; break;; esac; done 2>/dev/null < "$d/status"; echo "\${d#/proc/} $st $n"; done
exit 1`;

/**
 * Lists every process but this script, once the container's main process (init's child, our `sleep`) is up: right
 * after the container starts, init may not have started it yet.
 */
const recordSystemScript = `i=0
while [ "$i" -lt 20000 ]; do
  up=0
  for d in /proc/[0-9]*; do
    n=; pp=
    while read -r k v _; do case $k in Name:) n=$v;; PPid:) pp=$v; break;; esac; done 2>/dev/null < "$d/status"
    [ "$n" = sleep ] && [ "$pp" = 1 ] && { up=1; break; }
  done
  [ "$up" = 1 ] && break
  i=$((i+1))
done
[ "$up" = 1 ] || exit 1
for d in /proc/[0-9]*; do p=\${d#/proc/}; [ "$p" = "$$" ] || echo "$p"; done`;

export class DockerSandbox implements Sandbox, ByteExec {
  readonly backend = 'docker' as const;
  private stopped = false;
  private lost: Error | undefined;
  /** Processes that existed before any setup or agent command (root agents only; see recordSystemProcesses). */
  private systemPids: string[] = [];
  /** Settles once a dead channel has been told apart from a lost host. */
  private lostCheck: Promise<void> | undefined;
  /** Whether an agent command ran here, and whether every agent process was ended since (see channelDied). */
  private agentRan = false;
  private agentEnded = false;
  private readonly retiredChannels: SandboxChannels[] = [];
  private get agentMayRun(): boolean {
    return this.agentRan && !this.agentEnded;
  }

  /** The sandbox's command channels once started; without them each command is one docker exec. */
  private channels: SandboxChannels | undefined;

  /**
   * Set by a pool that recycles containers: `stop` hands a sandbox whose channels are healthy to it (which scrubs
   * the container or removes it) instead of removing it. This object is finished either way: a later lease of the
   * container is a new DockerSandbox with new channels.
   */
  recycler: ((sandbox: DockerSandbox) => void) | undefined;
  /** Rollouts this container has served, this one included. */
  uses = 1;
  /** The container's fingerprint as created (recycle.ts); a scrub must give it back. */
  fingerprint: string | undefined;

  constructor(
    readonly id: string,
    readonly container: Docker.Container,
    private readonly docker: Docker,
    readonly host: string,
    readonly shape: SandboxShape,
    private readonly onStop: () => void,
  ) {}

  /** Who agent commands run as: uid 65534, or root for `agentUser: root`. */
  private get agentUser(): string {
    return this.shape.agentUser === 'root' ? '0:0' : `${agentUid}:${agentUid}`;
  }

  async exec(command: Command, options: ExecOptions = {}): Promise<ExecResult> {
    const { stdoutBytes: _bytes, ...result } = await this.execBytes(command, options);
    return result;
  }

  /** Stopped (or removed) already: nothing runs here any more. */
  get isStopped(): boolean {
    return this.stopped;
  }

  /** Whether commands go through the command channel (tests assert it, with each result's `via`). */
  get hasChannel(): boolean {
    return this.channels !== undefined;
  }

  /** The backend hands over the started channels; from then on every command uses them. */
  useChannels(channels: SandboxChannels): void {
    this.channels = channels;
  }

  /**
   * A supervisor ended while the sandbox was meant to be up: nothing can run here any more. If the daemon still
   * answers, the container itself (its contents) is to blame, which makes it the agent's failure, not the host's.
   */
  channelDied(reason: string): void {
    if (this.stopped || this.lost) return;
    if (!this.agentMayRun) {
      // No agent process can exist any more (or none ever ran here): a verifier that ends every process, as Harbor's
      // test.sh does, ended a supervisor. Nothing the agent did is to blame; later commands go by docker exec.
      // A command still in flight on a live channel (the verifier itself) finishes there; they close at stop.
      if (this.channels) this.retiredChannels.push(this.channels);
      this.channels = undefined;
      return;
    }
    this.lost = new SandboxFaultError(`the sandbox's command channel ended (${reason}); the sandbox cannot run commands any more`);
    // A channel also ends when its daemon dies: then the host is to blame, and the rollout can be retried elsewhere.
    this.lostCheck = withTimeout(this.docker.ping(), pingTimeoutMs).then(
      () => undefined,
      (err: unknown) => {
        if (isConnectionError(err) || err instanceof PingTimeout) this.lost = new SandboxHostLostError(this.host, err);
      },
    );
  }

  /** Why the sandbox cannot run commands, once a dead channel's cause is known. */
  private async lostReason(): Promise<Error | undefined> {
    await this.lostCheck;
    return this.lost;
  }

  /** Today's last resort, kept: a command that could not be stopped ends with its container. */
  removeAsLastResort(): void {
    if (this.stopped) return;
    this.lost = new SandboxFaultError(`sandbox ${this.id} was removed because a command could not be stopped any other way`);
    this.stop().catch(() => undefined);
  }

  async execBytes(command: Command, options: ExecOptions = {}): Promise<ExecResultWithBytes> {
    await this.lostCheck;
    this.ensureUsable();
    throwIfCancelled(options.signal);
    if (roleOf(options) === 'agent') this.agentRan = true;
    if (this.channels) return this.viaChannel(command, options);
    return this.execPerCommand(command, options);
  }

  /** One `docker exec` for this command, the path before the channel: the fallback, and benchmarks' baseline. */
  async execPerCommand(command: Command, options: ExecOptions = {}): Promise<ExecResultWithBytes> {
    this.ensureUsable();
    const started = performance.now();
    const plan = perCommandPlan(this.shape.limits, options);
    const user = roleOf(options) === 'agent' ? this.agentUser : '0:0';
    let opened: { exec: Docker.Exec; stream: Duplex };
    try {
      opened = await openPerCommandExec(this.container, command, options, { plan, user, workingDir: sandboxCwd(this.shape.workdir, options.cwd) });
    } catch (err) {
      throw this.classify(err);
    }
    const drained = await drainPerCommandExec(this.docker.modem, opened.stream, plan, options, {
      killGroup: () => void this.run(killGroupScript(plan.pidFile)).catch(() => undefined),
      removeContainer: () => this.removeAsLastResort(),
    });
    if (drained.error !== undefined) throw this.classify(drained.error);
    if (drained.cancelled) throw new CancelledError('command cancelled');
    if (this.lost) throw this.lost;
    const exitCode = await this.exitCodeOf(opened.exec);
    return perCommandResult(drained, exitCode, Math.round(performance.now() - started), plan.timeoutMs);
  }

  private viaChannel(command: Command, options: ExecOptions): Promise<ExecResultWithBytes> {
    const { workdir, limits } = this.shape;
    return execOnChannel(this.channels!, command, options, { workdir, timeoutMs: limits.commandTimeoutSec * 1000, maxOutputBytes: limits.maxOutputBytes }, () => this.lostReason());
  }

  async putFiles(files: SandboxFile[], options: { signal?: Cancellation; under?: 'workspace' | 'tests' } = {}): Promise<void> {
    const under = options.under ?? 'workspace';
    await putFilesInside(this, files, under === 'tests' ? verifierPaths.tests : this.shape.workdir, under, options.signal);
  }

  /** Read through `cat` in the container, not getArchive: archive calls see underneath tmpfs mounts such as /tmp. */
  async getFile(path: string, options: { signal?: Cancellation } = {}): Promise<Buffer | undefined> {
    const full = path.startsWith('/') ? path : `${this.shape.workdir.replace(/\/$/, '')}/${path}`;
    return getFileInside(this, full, 64 * 1024 * 1024, options.signal);
  }

  /**
   * `kill -9 -1` as the agent user signals every process of that user but itself; repeated until /proc shows none
   * left but zombies, so forks racing the kill lose. (kill's own status cannot tell: the kernel reports success
   * when only processes it may not signal, such as root's, remain.) Run without the timeout wrapper, whose own
   * process would be among those killed.
   */
  async endAgentProcesses(): Promise<void> {
    await this.lostCheck;
    this.ensureUsable();
    if (this.channels) {
      // The agent channel ends its commands, its session and any process of the agent's uid, until none is left.
      if (!(await endAgentOnChannel(this.channels, () => this.lostReason()))) throw new SandboxFaultError('the agent\'s processes could not all be ended (they kept forking)');
      if (this.shape.agentUser === 'root') await this.endRootStrays(this.channels);
      this.agentEnded = true;
      return;
    }
    try {
      if (this.shape.agentUser === 'root') {
        // No timeout wrapper: it would be among the processes killed.
        const r = await this.runCapture('0:0', ['/bin/sh', '-c', endRootAgentScript, 'sh', ...this.systemPids]);
        if (r.exitCode !== 0) throw new SandboxFaultError(`the agent's processes could not all be ended (they kept forking); left: ${r.stdout.trim().split('\n').join(', ')} (kept: ${this.systemPids.join(' ')})`);
        return;
      }
      const code = await this.runAs(`${agentUid}:${agentUid}`, ['/bin/sh', '-c', endAgentScript, 'sh', String(agentUid)]);
      if (code !== 0) throw new SandboxFaultError('the agent\'s processes could not all be ended (they kept forking)');
    } catch (err) {
      throw this.classify(err);
    }
  }

  /**
   * A root agent's processes are root's too: after its channel ended its own commands, every process but the
   * system's (recorded at start), the two supervisors and this sweep's own shim is killed, through the root channel.
   */
  private async endRootStrays(channels: SandboxChannels): Promise<void> {
    const keep = [...this.systemPids, String(channels.agent.supervisorPid ?? ''), String(channels.root.supervisorPid ?? '')].filter((p) => /^\d+$/.test(p));
    const r = await execOnChannel(channels, ['/bin/sh', '-c', endRootAgentScript, 'sh', ...keep], { as: 'verifier', timeoutMs: 60_000, maxOutputBytes: 64 * 1024 }, { workdir: '/', timeoutMs: 60_000, maxOutputBytes: 64 * 1024 }, () => this.lostReason());
    if (r.exitCode !== 0) throw new SandboxFaultError(`the agent's processes could not all be ended (they kept forking); left: ${r.stdout.trim().split('\n').join(', ')} (kept: ${keep.join(' ')})`);
  }

  /**
   * Root agents (Harbor's model) share uid 0 with the container's own processes, so those are told apart by when
   * they started: every process alive right after the container started, before any setup or agent command, is the
   * system's (init, the main process, the backend's own helpers) and survives endAgentProcesses; every later one
   * is killed.
   */
  async recordSystemProcesses(): Promise<void> {
    const r = await this.runCapture('0:0', ['/bin/sh', '-c', recordSystemScript]);
    if (r.exitCode !== 0) throw new SandboxFaultError('the container\'s main process did not start');
    this.systemPids = r.stdout.split('\n').filter((p) => /^\d+$/.test(p));
  }

  /** Runs a helper argv with no wrapper; returns its exit code and (at most 64 KiB of) its stdout. */
  private async runCapture(user: string, argv: string[]): Promise<{ exitCode: number; stdout: string }> {
    const exec = await this.container.exec({ Cmd: argv, AttachStdout: true, AttachStderr: false, User: user });
    const stream = (await exec.start({})) as Duplex;
    const out = new CappedOutput(64 * 1024);
    await new Promise<void>((resolve) => {
      this.docker.modem.demuxStream(stream, new Writable({ write(c: Buffer, _e, done): void { out.push(c); done(); } }), new Writable({ write(_c, _e, done): void { done(); } }));
      stream.once('end', () => resolve());
      stream.once('close', () => resolve());
      stream.once('error', () => resolve());
    });
    return { exitCode: await this.exitCodeOf(exec), stdout: out.text() };
  }


  collectLogs(options: { signal?: Cancellation } = {}): Promise<CollectedLogs> {
    return collectLogsInside(this, options.signal);
  }

  exportWorkspace(options: { signal?: Cancellation } = {}): Promise<WorkspaceArchive> {
    return exportWorkspaceInside(this, this.shape.workdir, this.shape.limits, options.signal);
  }

  importWorkspace(archive: WorkspaceArchive, options: { signal?: Cancellation } = {}): Promise<void> {
    return importWorkspaceInside(this, archive, this.shape.workdir, options.signal);
  }

  sweepWorkspace(options: { signal?: Cancellation } = {}): Promise<TransferReport> {
    return sweepWorkspaceInside(this, this.shape.workdir, options.signal);
  }

  resetVerifierDirs(options: { signal?: Cancellation } = {}): Promise<void> {
    return resetVerifierDirsInside(this, options.signal);
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.onStop();
    if (this.recycler && this.recyclable) {
      this.recycler(this);
      return;
    }
    await this.destroy();
  }

  /** Only a sandbox whose two channels served it to the end can be scrubbed through them. */
  private get recyclable(): boolean {
    return this.channels !== undefined && !this.lost && this.retiredChannels.length === 0 && this.shape.agentUser !== 'root' && this.fingerprint !== undefined;
  }

  /** Records the container's first fingerprint (before any command of a rollout ran); false when it cannot. */
  async recordFingerprint(): Promise<boolean> {
    if (!this.channels) return false;
    this.fingerprint = await firstFingerprint(this.channels);
    return this.fingerprint !== undefined;
  }

  /** After `stop` handed it to a recycler: scrubs the container through its channels, which are then closed. */
  async scrub(): Promise<boolean> {
    const channels = this.channels;
    this.channels = undefined;
    if (!this.stopped || !channels || !this.fingerprint) return false;
    return scrubContainer(channels, this.shape.workdir, this.fingerprint);
  }

  /** Removes the container and its workspace volume. */
  async destroy(): Promise<void> {
    this.stopped = true;
    for (const ch of [this.channels, ...this.retiredChannels]) for (const c of [ch?.agent, ch?.root] as (ChannelClient | undefined)[]) c?.close();
    await this.container.remove({ force: true, v: true }).catch(ignoreGone);
    await this.docker.getVolume(this.id).remove().catch(ignoreGone);
  }

  /** Runs a helper command as root with no wrapper and waits for it. */
  private async run(command: string): Promise<void> {
    await this.runAs('0:0', ['sh', '-c', command]).catch(() => undefined);
  }

  /** Runs a helper argv with no wrapper, waits for it and returns its exit code. */
  private async runAs(user: string, argv: string[]): Promise<number> {
    const exec = await this.container.exec({ Cmd: argv, AttachStdout: true, AttachStderr: true, User: user });
    const stream = (await exec.start({})) as Duplex;
    stream.resume();
    await new Promise<void>((resolve) => {
      stream.once('end', () => resolve());
      stream.once('close', () => resolve());
      stream.once('error', () => resolve());
    });
    return this.exitCodeOf(exec);
  }

  private async exitCodeOf(exec: Docker.Exec): Promise<number> {
    for (let attempt = 0; attempt < 50; attempt++) {
      try {
        const info = await exec.inspect();
        if (!info.Running) return info.ExitCode ?? 137;
      } catch (err) {
        if (this.stopped || this.lost) return 137;
        throw this.classify(err);
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    return 137;
  }

  private ensureUsable(): void {
    if (this.lost) throw this.lost;
    if (this.stopped) throw new Error(`sandbox ${this.id} is stopped`);
  }

  private classify(err: unknown): unknown {
    if (isConnectionError(err)) {
      this.lost = new SandboxHostLostError(this.host, err);
      return this.lost;
    }
    return err;
  }
}

function ignoreGone(err: unknown): void {
  const code = (err as { statusCode?: number }).statusCode;
  if (code !== 404 && code !== 409 && !isConnectionError(err)) throw err;
}
