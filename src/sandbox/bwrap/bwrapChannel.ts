import { verifierPaths } from '../../core/ports/sandbox.js';
import { reaperBeside } from '../channel/binary.js';
import { ChannelClient } from '../channel/client.js';
import type { SandboxChannels } from '../channel/channelExec.js';
import { sharedSpawner, type SpawnedSandbox } from './spawner.js';

/** Where the supervisor is bound (read-only) inside the sandbox's namespaces. */
export const bwrapChannelPath = '/run/coevolve/channel';
/** ...and the init of each command's pid namespace (reaper.c), when it was built. */
export const bwrapReaperPath = '/run/coevolve/reaper';

const helloTimeoutMs = 30_000;

export interface BwrapChannelProcess {
  channels: SandboxChannels;
  /** Host pid of the namespace set's outermost process (bwrap, exec'd by the launcher). */
  pid: number;
  /** Closes both channels and ends the namespace set; resolves when bwrap has exited. */
  stop(): Promise<void>;
}

/**
 * The bwrap arguments of the sandbox's one long-lived namespace set, around the supervisor instead of a command:
 * the same root, binds, unshares and environment as a per-command bwrap, plus the verifier's folders (which the
 * supervisor covers with empty read-only folders for every command that is not the verifier's) and the supervisor
 * binary. The supervisor keeps CAP_SYS_ADMIN and CAP_SETFCAP in the sandbox's own user namespace only, to give each
 * command a new pid and mount namespace and a user namespace of its own (mapping the sandbox's uid 0, which the
 * kernel allows only with CAP_SETFCAP) with no capability left.
 */
export function channelBwrapArgs(base: { rootArgs: string[]; binds: string[]; workdir: string; env: Record<string, string> }, binary: string): string[] {
  const reaper = reaperBeside(binary);
  return [
    ...base.rootArgs,
    '--proc', '/proc', '--dev', '/dev',
    ...base.binds,
    '--tmpfs', '/run', '--ro-bind', binary, bwrapChannelPath, ...(reaper ? ['--ro-bind', reaper, bwrapReaperPath] : []),
    '--chdir', base.workdir,
    // uid 0 of the sandbox's user namespace, so bwrap makes no second one: a mount namespace copied across a user
    // namespace locks bwrap's covers of /proc/sys and the like, and the kernel then refuses each command its own /proc.
    '--unshare-all', '--unshare-user', '--uid', '0', '--gid', '0',
    '--cap-drop', 'ALL', '--cap-add', 'CAP_SYS_ADMIN', '--cap-add', 'CAP_SETFCAP', '--die-with-parent', '--new-session', '--hostname', 'sandbox',
    '--clearenv', ...Object.entries(base.env).flatMap(([k, v]) => ['--setenv', k, v]),
    '--', bwrapChannelPath, '--mode', 'bwrap', '--role', 'agent', '--root-in', '3', '--root-out', '4', '--outer-uid', '0',
    '--cover', verifierPaths.tests, '--cover', verifierPaths.logs, ...(reaper ? ['--reaper', bwrapReaperPath] : []),
  ];
}

/**
 * Starts the namespace set with its supervisor (`argv`: the channel binary's `--launch` with rlimits, cgroup joins and
 * bwrap around it) from the shared spawner (spawner.ts: the host process never forks itself), and connects both
 * channels: the agent's over fds 0 and 1, root's over fds 3 and 4 (the supervisor forks a second process for it).
 */
export async function startBwrapChannels(argv: string[], cwd: string, name: string, hooks: { onDead?: (reason: string) => void; onStuck?: () => void } = {}): Promise<BwrapChannelProcess> {
  const [binary, mode, ...launchArgs] = argv;
  if (!binary || mode !== '--launch') throw new Error(`a bwrap sandbox starts through the channel binary's launcher, not ${argv.slice(0, 2).join(' ')}`);
  const spawner = await sharedSpawner(binary);
  let started: SpawnedSandbox;
  try {
    started = await spawner.spawn(launchArgs, cwd);
  } catch (err) {
    throw new Error(`the command channel could not start in the bwrap sandbox (${(err as Error).message})`);
  }
  const agent = new ChannelClient(started.agent, started.agent, { name: `${name} (agent channel)`, ...hooks });
  const root = new ChannelClient(started.root, started.root, { name: `${name} (root channel)`, ...hooks });
  const stop = async (): Promise<void> => {
    agent.close();
    root.close();
    started.kill();
    await started.exited;
    for (const s of [started.agent, started.root]) s.destroy();
  };
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      Promise.all([agent.hello, root.hello]),
      started.exited.then(() => Promise.reject(new Error('it exited'))),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${helloTimeoutMs} ms`)), helloTimeoutMs))),
    ]);
  } catch (err) {
    await stop();
    throw new Error(`the command channel could not start in the bwrap sandbox (${(err as Error).message}): ${started.diagnostics().trim().slice(0, 500)}`);
  } finally {
    clearTimeout(timer);
  }
  return { channels: { agent, root }, pid: started.pid, stop };
}
