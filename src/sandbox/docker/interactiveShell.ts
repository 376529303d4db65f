import type { DockerSandbox } from './dockerSandbox.js';
import { startExec } from './execStart.js';
import { agentUid } from './tarFiles.js';

/**
 * Attaches the caller's terminal to a shell in the sandbox: a TTY exec, stdin in raw mode passed through, the
 * window size followed. Resolves with the shell's exit code when it ends; the sandbox stays until the caller stops it.
 */
export async function attachShell(sandbox: DockerSandbox, options: { root?: boolean } = {}): Promise<number> {
  const stdin = process.stdin;
  const exec = await sandbox.container.exec({
    Cmd: ['sh', '-c', 'if command -v bash >/dev/null 2>&1; then exec bash; else exec sh -i; fi'],
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    Tty: true,
    User: options.root ? '0:0' : `${agentUid}:${agentUid}`,
    WorkingDir: sandbox.shape.workdir,
    Env: [`TERM=${process.env.TERM ?? 'xterm'}`],
  });
  const stream = await startExec(exec, { stdin: true, tty: true });
  const resize = (): void => {
    if (process.stdout.columns) exec.resize({ h: process.stdout.rows, w: process.stdout.columns }).catch(() => undefined);
  };
  const wasRaw = stdin.isTTY ? stdin.isRaw : false;
  if (stdin.isTTY) stdin.setRawMode(true);
  stdin.resume();
  stdin.pipe(stream);
  stream.pipe(process.stdout);
  process.stdout.on('resize', resize);
  resize();
  try {
    await new Promise<void>((resolve, reject) => {
      stream.once('end', () => resolve());
      stream.once('close', () => resolve());
      stream.once('error', reject);
    });
  } finally {
    process.stdout.off('resize', resize);
    stdin.unpipe(stream);
    if (stdin.isTTY) stdin.setRawMode(wasRaw);
    stdin.pause();
  }
  for (let i = 0; i < 50; i++) {
    const info = await exec.inspect();
    if (!info.Running) return info.ExitCode ?? 0;
    await new Promise((r) => setTimeout(r, 20));
  }
  return 0;
}
