import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import type { Duplex } from 'node:stream';
import type Docker from 'dockerode';
import type { Command, ExecOptions } from '../../core/ports/sandbox.js';
import { commandArgv } from '../commandArgv.js';
import { CappedOutput, floodLimit } from '../outputCap.js';
import { startExec } from './execStart.js';

/** How long after the deadline the host kills a command itself, when the in-container `timeout` did not. */
const hostKillGraceMs = 1000;
/** How long a killed command's stream may take to end before the container is removed to end it. */
const removeGraceMs = 3000;

/**
 * Docker has no API to kill an exec. Each command therefore runs under the image's `timeout` (when it has one) and
 * records its pid, which is also its process group and session: every exec is a session leader. The host kills
 * the group from a second exec when the deadline passes, on a flood or on cancellation, and removes the container
 * as the last resort when even that does not end the command.
 */
function wrapperScript(pidFile: string, timeoutSec: number): string {
  // exec, not a child: one process fewer per command, and the pid stays the session's. The command is the argv
  // after the script ("$@"), never pasted into it.
  return `echo $$ >${pidFile} 2>/dev/null; if command -v timeout >/dev/null 2>&1; then exec timeout -s KILL ${timeoutSec} "$@"; else exec "$@"; fi`;
}

/** A command's limits, resolved once from its options and the sandbox's defaults. */
export interface PerCommandPlan {
  timeoutMs: number;
  /** The in-container `timeout`, whole seconds and at least one. */
  timeoutSec: number;
  maxOutputBytes: number;
  /** Where the wrapper records the command's pid (its process group and session). */
  pidFile: string;
}

export function perCommandPlan(limits: { commandTimeoutSec: number; maxOutputBytes: number }, options: ExecOptions): PerCommandPlan {
  const timeoutMs = options.timeoutMs ?? limits.commandTimeoutSec * 1000;
  return {
    timeoutMs,
    timeoutSec: Math.max(1, Math.ceil(timeoutMs / 1000)),
    maxOutputBytes: options.maxOutputBytes ?? limits.maxOutputBytes,
    pidFile: `/tmp/.coevolve-exec-${randomBytes(6).toString('hex')}`,
  };
}

/** Creates and starts the command's exec under the wrapper; errors are the caller's to classify. */
export async function openPerCommandExec(
  container: Docker.Container,
  command: Command,
  options: ExecOptions,
  at: { plan: PerCommandPlan; user: string; workingDir: string },
): Promise<{ exec: Docker.Exec; stream: Duplex }> {
  const hasStdin = options.stdin !== undefined;
  const exec = await container.exec({
    Cmd: ['sh', '-c', wrapperScript(at.plan.pidFile, at.plan.timeoutSec), 'sh', ...commandArgv(command)],
    AttachStdout: true,
    AttachStderr: true,
    AttachStdin: hasStdin,
    Tty: false,
    User: at.user,
    WorkingDir: at.workingDir,
    Env: Object.entries(options.env ?? {}).map(([k, v]) => `${k}=${v}`),
  });
  return { exec, stream: await startExec(exec, { stdin: hasStdin }) };
}

/** The shell line that kills the recorded process group, run as root from a second exec. */
export function killGroupScript(pidFile: string): string {
  return `p=$(cat ${pidFile} 2>/dev/null) && kill -9 -$p 2>/dev/null; kill -9 $p 2>/dev/null; true`;
}

/** What the sandbox does for a command it must stop: kill its group, and remove the container when that fails. */
export interface StopHooks {
  killGroup: () => void;
  /** The command escaped its session (setsid) and still holds the stream after the kill: end it with the container. */
  removeContainer: () => void;
}

export interface DrainedExec {
  stdout: CappedOutput;
  stderr: CappedOutput;
  flooded: boolean;
  flood: number;
  hostTimedOut: boolean;
  cancelled: boolean;
  /** The stream failed without being killed: the caller classifies the error. */
  error?: unknown;
}

/**
 * Reads the exec's stream to its end, capping output, and stops the command on a flood, on cancellation or when the
 * host's own deadline passes (the in-container `timeout` may be missing or ignored).
 */
export async function drainPerCommandExec(modem: Docker['modem'], stream: Duplex, plan: PerCommandPlan, options: ExecOptions, hooks: StopHooks): Promise<DrainedExec> {
  const out: DrainedExec = { stdout: new CappedOutput(plan.maxOutputBytes), stderr: new CappedOutput(plan.maxOutputBytes), flooded: false, flood: floodLimit(plan.maxOutputBytes), hostTimedOut: false, cancelled: false };
  const timers: NodeJS.Timeout[] = [];
  let killing = false;
  const kill = (): void => {
    if (killing) return;
    killing = true;
    hooks.killGroup();
    timers.push(setTimeout(() => {
      stream.destroy();
      hooks.removeContainer();
    }, removeGraceMs));
  };
  const sink = (capped: CappedOutput): Writable => new Writable({
    write(chunk: Buffer, _enc, done): void {
      capped.push(chunk);
      if (!out.flooded && out.stdout.total + out.stderr.total > out.flood) {
        out.flooded = true;
        kill();
      }
      done();
    },
  });
  const onAbort = (): void => {
    out.cancelled = true;
    kill();
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });
  timers.push(setTimeout(() => {
    out.hostTimedOut = true;
    kill();
  }, Math.max(plan.timeoutMs, plan.timeoutSec * 1000) + hostKillGraceMs));
  try {
    await new Promise<void>((resolve, reject) => {
      modem.demuxStream(stream, sink(out.stdout), sink(out.stderr));
      stream.once('end', () => resolve());
      stream.once('close', () => resolve());
      stream.once('error', (err) => reject(err));
      if (options.stdin !== undefined) stream.end(options.stdin);
    });
  } catch (err) {
    if (!killing) out.error = err;
  } finally {
    for (const t of timers) clearTimeout(t);
    options.signal?.removeEventListener('abort', onAbort);
  }
  return out;
}

/** A drained command's result: a kill on the deadline (host's or `timeout`'s) reads as exit 124, timed out. */
export function perCommandResult(drained: DrainedExec, exitCode: number, durationMs: number, timeoutMs: number): {
  stdout: string; stdoutBytes: Buffer; stderr: string; exitCode: number; timedOut: boolean; truncated: boolean; durationMs: number; via: 'exec'; shell: 'stateless';
} {
  const { stdout, stderr, flooded, flood } = drained;
  const timedOut = drained.hostTimedOut || ((exitCode === 137 || exitCode === 124) && durationMs >= timeoutMs);
  return {
    stdout: stdout.text(),
    stdoutBytes: stdout.bytes(),
    stderr: flooded ? `${stderr.text()}\n[coevolve: command stopped after writing more than ${flood} bytes]\n` : stderr.text(),
    exitCode: timedOut ? 124 : exitCode,
    timedOut,
    truncated: stdout.truncated || stderr.truncated || flooded,
    durationMs,
    via: 'exec',
    shell: 'stateless',
  };
}
