import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
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
    const killGroup = (): void => killProcessGroup(child);
    const watch = watchCommand(child, options, killGroup);
    child.on('close', (code, sig) => {
      watch.stop();
      // Grandchildren that kept the pipes open are gone with the group; make sure of it even on a normal exit.
      killGroup();
      const failure = failureOf(watch, code, file);
      if (failure) reject(failure);
      else resolve(resultOf(watch, code, sig, started));
    });
  });
}

/** What a running command wrote (capped) and why, if at all, its group was killed. */
interface CommandWatch {
  stdout: CappedOutput;
  stderr: CappedOutput;
  /** Output bytes past which the command is stopped. */
  flood: number;
  timedOut: boolean;
  flooded: boolean;
  cancelled: boolean;
  spawnError?: Error;
  /** Ends the timeout and the cancellation listener once the command closed. */
  stop: () => void;
}

/** Collects the command's output, feeds it its stdin, and kills its group on timeout, flood or cancellation. */
function watchCommand(child: ChildProcessWithoutNullStreams, options: SpawnCommandOptions, killGroup: () => void): CommandWatch {
  const watch: CommandWatch = {
    stdout: new CappedOutput(options.maxOutputBytes),
    stderr: new CappedOutput(options.maxOutputBytes),
    flood: floodLimit(options.maxOutputBytes),
    timedOut: false,
    flooded: false,
    cancelled: false,
    stop: () => undefined,
  };
  const timer = setTimeout(() => {
    watch.timedOut = true;
    killGroup();
  }, options.timeoutMs);
  const onAbort = (): void => {
    watch.cancelled = true;
    killGroup();
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });
  watch.stop = () => {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  };
  const onData = (sink: CappedOutput) => (chunk: Buffer): void => {
    sink.push(chunk);
    if (!watch.flooded && watch.stdout.total + watch.stderr.total > watch.flood) {
      watch.flooded = true;
      killGroup();
    }
  };
  child.stdout.on('data', onData(watch.stdout));
  child.stderr.on('data', onData(watch.stderr));
  child.stdin.on('error', () => undefined); // the command may exit without reading its stdin
  child.stdin.end(options.stdin ?? '');
  child.on('error', (err) => {
    watch.spawnError = err;
  });
  return watch;
}

function killProcessGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Why a closed command has no result: it was cancelled, or it never started. */
function failureOf(watch: CommandWatch, code: number | null, file: string): Error | undefined {
  if (watch.cancelled) return new CancelledError('command cancelled');
  if (watch.spawnError && code === null) return new Error(`could not start ${file}: ${watch.spawnError.message}`);
  return undefined;
}

/** The result of a command that ran: a timeout reads as exit code 124, a kill by signal as 128 + its number. */
function resultOf(watch: CommandWatch, code: number | null, sig: NodeJS.Signals | null, started: number): ExecResultWithBytes {
  const { stdout, stderr, flooded, timedOut } = watch;
  const exitCode = code ?? 128 + signalNumber(sig);
  let err = stderr.text();
  if (flooded) err += `\n[coevolve: command stopped after writing more than ${watch.flood} bytes]\n`;
  return {
    stdout: stdout.text(),
    stdoutBytes: stdout.bytes(),
    stderr: err,
    exitCode: timedOut ? 124 : exitCode,
    timedOut,
    truncated: stdout.truncated || stderr.truncated || flooded,
    durationMs: Math.round(performance.now() - started),
  };
}

function signalNumber(sig: NodeJS.Signals | null): number {
  const table: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGABRT: 6, SIGKILL: 9, SIGSEGV: 11, SIGPIPE: 13, SIGTERM: 15, SIGXCPU: 24, SIGXFSZ: 25 };
  return sig ? (table[sig] ?? 0) : 0;
}
