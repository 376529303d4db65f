import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { channelBinary } from './binary.js';
import { ChannelClient } from './client.js';

export interface HostChannel {
  client: ChannelClient;
  child: ChildProcess;
  /** Closes the channel and waits for the supervisor to exit (it ends everything it started first). */
  stop(): Promise<void>;
}

/**
 * A supervisor run on this machine in process mode (no isolation): the unsandboxed backend's channel and the
 * protocol's tests against a real supervisor.
 */
export async function startHostChannel(options: { env: Record<string, string>; cwd: string; name?: string; shell?: string }): Promise<HostChannel> {
  const binary = await channelBinary();
  const child = spawn(binary, ['--mode', 'process', '--role', 'agent', ...(options.shell ? ['--shell', options.shell] : [])], {
    cwd: options.cwd,
    env: options.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let diagnostics = '';
  child.stderr?.on('data', (c: Buffer) => (diagnostics = (diagnostics + c.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const client = new ChannelClient(child.stdout!, child.stdin!, { name: options.name ?? 'host channel' });
  child.stdin!.on('error', () => undefined);
  try {
    await Promise.race([client.hello, exited.then(() => Promise.reject(new Error(`the supervisor exited before it answered: ${diagnostics.trim()}`)))]);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  return {
    client,
    child,
    stop: async () => {
      client.close();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
