import type { Duplex } from 'node:stream';
import type Docker from 'dockerode';

/**
 * Starts a created exec and returns its stream. A hijacked start (stdin attached) that dockerd refuses, because the
 * container ended between the exec's create and its start (for example a pool disposed while it starts a sandbox's
 * channels), leaves docker-modem's request open: never ended, its socket referenced, so the process cannot exit (a
 * reproduction held its process about 6 minutes; a finished integration run stayed alive for minutes on two). The request carries
 * an abort signal, aborted when the start fails. A start without stdin ends its request and leaves nothing open.
 */
export async function startExec(exec: Docker.Exec, opts: { stdin: boolean; tty?: boolean }): Promise<Duplex> {
  const Tty = opts.tty ?? false;
  if (!opts.stdin) return (await exec.start({ Tty })) as Duplex;
  const abort = new AbortController();
  try {
    return (await exec.start({ hijack: true, stdin: true, Tty, abortSignal: abort.signal })) as Duplex;
  } catch (err) {
    abort.abort();
    throw err;
  }
}
