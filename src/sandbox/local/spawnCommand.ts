import { spawn } from 'node:child_process';
import { CancelledError } from '../../core/ports/cancellation.js';
import type { Cancellation } from '../../core/ports/cancellation.js';
import type { ExecResult } from '../../core/ports/sandbox.js';
import { CappedOutput, floodLimit } from '../outputCap.js';
import type { ExecResultWithBytes } from '../verification/inSandboxFiles.js';

export interface SpawnCommandOptions {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  stdin?: string | Uint8Array;
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: Cancellation;
}

/**
 * Runs one command as the leader of its own process group and kills the whole group on timeout, flood or
 * cancellation, so nothing it forked outlives it (bwrap's --die-with-parent covers the sandboxed case too).
 */
export function spawnCommand(options: SpawnCommandOptions): Promise<ExecResultWithBytes> {
  const started = performance.now();
  return new Promise<ExecResultWithBytes>((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(new CancelledError('command cancelled before it started'));
      return;
    }
    const [file, ...args] = options.argv as [string, ...string[]];
    const child = spawn(file, args, { cwd: options.cwd, env: options.env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    const stdout = new CappedOutput(options.maxOutputBytes);
    const stderr = new CappedOutput(options.maxOutputBytes);
    const flood = floodLimit(options.maxOutputBytes);
    let timedOut = false;
    let flooded = false;
    let cancelled = false;
    let spawnError: Error | undefined;

    const killGroup = (): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs);
    const onAbort = (): void => {
      cancelled = true;
      killGroup();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const onData = (sink: CappedOutput) => (chunk: Buffer): void => {
      sink.push(chunk);
      if (!flooded && stdout.total + stderr.total > flood) {
        flooded = true;
        killGroup();
      }
    };
    child.stdout.on('data', onData(stdout));
    child.stderr.on('data', onData(stderr));
    child.stdin.on('error', () => undefined); // the command may exit without reading its stdin
    child.stdin.end(options.stdin ?? '');
    child.on('error', (err) => {
      spawnError = err;
    });
    child.on('close', (code, sig) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      // Grandchildren that kept the pipes open are gone with the group; make sure of it even on a normal exit.
      killGroup();
      if (cancelled) {
        reject(new CancelledError('command cancelled'));
        return;
      }
      if (spawnError && code === null) {
        reject(new Error(`could not start ${file}: ${spawnError.message}`));
        return;
      }
      const exitCode = code ?? 128 + signalNumber(sig);
      let err = stderr.text();
      if (flooded) err += `\n[coevolve: command stopped after writing more than ${flood} bytes]\n`;
      resolve({
        stdout: stdout.text(),
        stdoutBytes: stdout.bytes(),
        stderr: err,
        exitCode: timedOut ? 124 : exitCode,
        timedOut,
        truncated: stdout.truncated || stderr.truncated || flooded,
        durationMs: Math.round(performance.now() - started),
      });
    });
  });
}

function signalNumber(sig: NodeJS.Signals | null): number {
  const table: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGABRT: 6, SIGKILL: 9, SIGSEGV: 11, SIGPIPE: 13, SIGTERM: 15, SIGXCPU: 24, SIGXFSZ: 25 };
  return sig ? (table[sig] ?? 0) : 0;
}
