import type { Command, ExecOptions } from '../../core/ports/sandbox.js';
import { commandArgv, roleOf } from '../commandArgv.js';
import type { ExecResultWithBytes } from '../verification/inSandboxFiles.js';
import type { ChannelClient } from './client.js';
import { ChannelClosedError } from './client.js';

/** A sandbox's two channels: agent commands (uid 65534) and root ones (setup, verifier), each its own process. */
export interface SandboxChannels {
  agent: ChannelClient;
  root: ChannelClient;
}

/** A command's working directory inside the sandbox: absolute, or relative to the workdir. */
export function sandboxCwd(workdir: string, cwd: string | undefined): string {
  if (cwd === undefined) return workdir;
  return cwd.startsWith('/') ? cwd : `${workdir.replace(/\/$/, '')}/${cwd}`;
}

/**
 * Runs one command through the channel of its role. A session is used only for an agent's command string without
 * stdin (an argv or a helper with stdin runs stateless, as before). `lost` turns a dead channel into the sandbox's
 * own error (a fault of its contents, or its host lost).
 */
export async function execOnChannel(channels: SandboxChannels, command: Command, options: ExecOptions, defaults: { workdir: string; timeoutMs: number; maxOutputBytes: number }, lost: () => Error | undefined | Promise<Error | undefined>): Promise<ExecResultWithBytes> {
  const role = roleOf(options);
  const session = options.shell === 'session' && role === 'agent' && typeof command === 'string' && options.stdin === undefined;
  try {
    return await (role === 'agent' ? channels.agent : channels.root).run({
      argv: session ? [command as string] : commandArgv(command),
      cwd: sandboxCwd(defaults.workdir, options.cwd),
      ...(options.env ? { env: options.env } : {}),
      ...(options.stdin !== undefined ? { stdin: options.stdin } : {}),
      timeoutMs: options.timeoutMs ?? defaults.timeoutMs,
      maxOutputBytes: options.maxOutputBytes ?? defaults.maxOutputBytes,
      session,
      verifier: role === 'verifier',
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (err) {
    if (err instanceof ChannelClosedError) throw (await lost()) ?? err;
    throw err;
  }
}

/** Ends every agent process through the agent channel (its commands, its session, and on docker its uid's strays). */
export async function endAgentOnChannel(channels: SandboxChannels, lost: () => Error | undefined | Promise<Error | undefined>): Promise<boolean> {
  try {
    return (await channels.agent.endAll()).ok;
  } catch (err) {
    if (err instanceof ChannelClosedError) throw (await lost()) ?? err;
    throw err;
  }
}
