import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { runWatched, treeSize, type WatchedRunOptions, type WatchedRunResult } from './watchedRun.js';

export const cliPath = resolve('dist/cli.js');

/** Runs the built CLI to completion. */
export function runCli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cliPath, ...args], {
    cwd: options.cwd ?? process.cwd(),
    env: { ...process.env, ...options.env },
    encoding: 'utf8',
    timeout: options.timeoutMs ?? 600_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: r.status ?? (r.signal ? 128 : 1), stdout: r.stdout, stderr: r.stderr };
}

/** Starts the built CLI in the background (for kill -9 and Ctrl-C tests). */
export function startCli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): ChildProcess {
  return spawn(process.execPath, [cliPath, ...args], { cwd: options.cwd ?? process.cwd(), env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Runs the built CLI without blocking this process (needed when this process serves the CLI, e.g. a model server). */
export function runCliAsync(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolvePromise) => {
    const child = startCli(args, options);
    let stdout = '', stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code, signal) => resolvePromise({ code: code ?? (signal ? 128 : 1), stdout, stderr }));
  });
}

/**
 * Runs the built CLI under a progress watchdog (see watchedRun.ts) rather than a fixed deadline: for whole demo or
 * multi-generation runs, whose time depends on the machine's load. Progress is what it prints, growth under
 * `watchDir` (the run's --out folder) and every 2 s of CPU its process tree uses. The caller's mocha hook or test
 * calls `this.timeout(0)` first.
 */
export function runCliWatched(args: string[], options: Omit<WatchedRunOptions, 'progress'> & { watchDir?: string } = {}): Promise<WatchedRunResult> {
  const { watchDir, ...rest } = options;
  return runWatched(process.execPath, [cliPath, ...args], { cpuStepMs: 2_000, ...rest, ...(watchDir ? { progress: () => treeSize(watchDir) } : {}) });
}
