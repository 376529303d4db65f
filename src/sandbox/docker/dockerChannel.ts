import { readFile } from 'node:fs/promises';
import { PassThrough, Writable } from 'node:stream';
import type Docker from 'dockerode';
import { ChannelClient } from '../channel/client.js';
import { startExec } from './execStart.js';

/** Where the supervisor sits in every container: a root-only tmpfs, so the agent cannot even list it. */
export const channelDir = '/run/coevolve';
export const channelPath = `${channelDir}/channel`;

const helloTimeoutMs = 30_000;

export type { SandboxChannels as DockerChannels } from '../channel/channelExec.js';

/**
 * Copies the supervisor into the container's root-only tmpfs through `cat` run as root in it, for images (and
 * remote hosts) where it could not be bind-mounted; the binary needs nothing of the image but `sh` and `cat` here.
 */
export async function injectChannel(container: Docker.Container, binary: string): Promise<void> {
  const bytes = await readFile(binary);
  const exec = await container.exec({
    Cmd: ['/bin/sh', '-c', `umask 077 && cat > ${channelPath} && chmod 0700 ${channelPath}`],
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    User: '0:0',
  });
  const stream = await startExec(exec, { stdin: true });
  let text = '';
  stream.on('data', (c: Buffer) => (text = (text + c.toString('latin1')).slice(-2000)));
  await new Promise<void>((resolve, reject) => {
    stream.once('end', () => resolve());
    stream.once('close', () => resolve());
    stream.once('error', reject);
    stream.end(bytes);
  });
  const info = await exec.inspect();
  if (info.ExitCode !== 0) throw new Error(`could not copy the command channel into the container (exit ${info.ExitCode}): ${text.replace(/[^\x20-\x7e\n]/g, '').trim().slice(0, 300)}`);
}

/**
 * Starts one supervisor as root with `docker exec` (one exec for the sandbox's whole life) and connects to it.
 * `role` is fixed for that process: an agent channel only ever runs commands as the agent user. A root agent's
 * (`sandbox.agentUser: root`, Harbor's model) is uid 0: its commands run as root with the container's
 * capabilities, as `docker exec --user 0` gave them, and the host ends its strays (DockerSandbox.endRootStrays).
 */
export async function startDockerChannel(docker: Docker, container: Docker.Container, role: 'agent' | 'root', name: string, hooks: { onDead?: (reason: string) => void; onStuck?: () => void } = {}, agentUid?: number): Promise<ChannelClient> {
  const exec = await container.exec({
    Cmd: [channelPath, '--mode', 'docker', '--role', role, ...(agentUid !== undefined ? ['--agent-uid', String(agentUid)] : [])],
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    Tty: false,
    User: '0:0',
    WorkingDir: '/',
  });
  const stream = await startExec(exec, { stdin: true });
  const frames = new PassThrough();
  let diagnostics = '';
  const errors = new Writable({
    write(chunk: Buffer, _enc, done): void {
      diagnostics = (diagnostics + chunk.toString('utf8')).slice(-2000);
      done();
    },
  });
  docker.modem.demuxStream(stream, frames, errors);
  const end = (): void => {
    frames.end();
  };
  stream.once('end', end);
  stream.once('close', end);
  stream.once('error', (err) => frames.destroy(err));
  const client = new ChannelClient(frames, stream, { name: `${name} (${role} channel)`, ...hooks });
  const timer = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`the command channel did not answer within ${helloTimeoutMs} ms`)), helloTimeoutMs).unref());
  try {
    await Promise.race([client.hello, timer]);
  } catch (err) {
    stream.destroy();
    const why = diagnostics.trim() || (err as Error).message;
    throw new Error(`the ${role} command channel could not start: ${why}`);
  }
  return client;
}
