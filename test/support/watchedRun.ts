// A child process run under a progress watchdog instead of a fixed deadline. A whole demo or multi-generation run
// takes ~1 min on a quiet machine and over 10 min on a loaded 2-core CI machine, so a fixed limit either fails a
// correct run under load or waits far too long for a hung one. Here the limit follows progress: the run fails only
// when it prints nothing new (and, if asked, writes nothing new and uses no CPU) for `quietMs`, or exceeds a generous
// overall cap. Output alone is not enough: the demo's "evolving population" phase screened children for over 180 s
// at load 15 without printing or writing a byte (all its plays are written when it ends).
// The caller's mocha hook or test must not hold it to a shorter limit of its own: call `this.timeout(0)` first.
import { spawn } from 'node:child_process';
import { readdirSync, statSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { treeCpuMs } from './processCpu.js';

export interface WatchedRunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** How long the child may go without printing (or growing `progress`) before it is killed. */
  quietMs?: number;
  /** The most the whole run may take, progress or not. */
  capMs?: number;
  /** A further measure of progress, e.g. the bytes under the run's output folder; any change counts as progress. */
  progress?: () => number;
  /** When set, every `cpuStepMs` of CPU used by the child and its descendants counts as progress (Linux /proc). */
  cpuStepMs?: number;
  /** How often the watchdog looks. */
  pollMs?: number;
}

export interface WatchedRunResult {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

export const defaultQuietMs = 180_000;
// Generous on purpose: CI gives the whole suite 90 minutes, and the quiet limit is the one that catches a hang.
export const defaultCapMs = 45 * 60_000;
/** How long a child told to stop (SIGTERM, so the CLI can end its sandboxes) gets before it is killed outright. */
const graceMs = 10_000;

/**
 * Runs `command args` to its end, collecting stdout and stderr. Rejects, after ending the child, with what it printed
 * when it goes quiet for `quietMs` or runs past `capMs`; otherwise resolves with its exit code (128 for a signal).
 */
export function runWatched(command: string, args: string[], options: WatchedRunOptions = {}): Promise<WatchedRunResult> {
  const { quietMs = defaultQuietMs, capMs = defaultCapMs, pollMs = 1_000, progress, cpuStepMs } = options;
  const started = Date.now();
  const child = spawn(command, args, { cwd: options.cwd ?? process.cwd(), env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const measure = (): string => `${progress?.() ?? ''} ${cpuStepMs && child.pid ? Math.floor(treeCpuMs(child.pid) / cpuStepMs) : ''}`;
  const quietWhat = ['printed', ...(progress ? ['written'] : []), ...(cpuStepMs ? ['computed'] : [])].join(' or ');
  let stdout = '', stderr = '';
  let lastChange = started;
  let lastMeasure = measure();
  // Read as it comes: an unread pipe that fills up would block the child's own writes, and look like a hang.
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    lastChange = Date.now();
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    lastChange = Date.now();
  });
  return new Promise((resolvePromise, reject) => {
    let stopped: string | undefined;
    const timer = setInterval(() => {
      const now = Date.now();
      const m = measure();
      if (m !== lastMeasure) {
        lastMeasure = m;
        lastChange = now;
      }
      if (now - lastChange > quietMs) stop(`went quiet: nothing new ${quietWhat} for ${Math.round((now - lastChange) / 1000)} s (quiet limit ${quietMs / 1000} s)`);
      else if (now - started > capMs) stop(`ran past its overall cap of ${capMs / 1000} s while still making progress`);
    }, pollMs);
    const stop = (why: string): void => {
      clearInterval(timer);
      stopped = why;
      child.kill('SIGTERM');
      setTimeout(() => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'), graceMs).unref();
    };
    child.on('error', (err) => {
      clearInterval(timer);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearInterval(timer);
      const ms = Date.now() - started;
      if (stopped) reject(new Error(`${[command, ...args].join(' ')}\n${stopped}, after ${Math.round(ms / 1000)} s; it was ended. What it printed:\n--- stdout (last 3000 characters)\n${stdout.slice(-3000)}\n--- stderr (last 3000 characters)\n${stderr.slice(-3000)}`));
      else resolvePromise({ code: code ?? (signal ? 128 : 1), stdout, stderr, ms });
    });
  });
}

/** The bytes and files under `dir` (0 when it is missing): a run's output folder grows with every event and rollout. */
export function treeSize(dir: string): number {
  let total = 0;
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) total += treeSize(p);
    else if (e.isFile()) {
      try {
        total += statSync(p).size + 1;
      } catch {
        // Removed between the listing and the look (a temporary file renamed into place): it counts next time.
      }
    }
  }
  return total;
}
