import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { cacheDir } from '../images/baseImages.js';

/**
 * Where supervisor.c is: beside this module in the source tree (tests, tsx), under dist/channel/ in the bundle
 * (scripts/build.mjs copies it there).
 */
export function channelSourcePath(): string | undefined {
  const candidates = [join(__dirname, 'supervisor.c'), join(__dirname, 'channel', 'supervisor.c'), join(__dirname, '..', 'src', 'sandbox', 'channel', 'supervisor.c')];
  return candidates.find((p) => existsSync(p));
}

let built: Promise<string> | undefined;

/**
 * The supervisor binary for this machine, compiled from the shipped source with the machine's own gcc (static, so
 * it needs nothing of the image it runs in) into the cache, keyed by the source's hash. Never downloaded.
 * Concurrent callers, and other processes, share one build: the binary appears under its final name atomically.
 */
export function channelBinary(): Promise<string> {
  built ??= build().catch((err: unknown) => {
    built = undefined;
    throw err;
  });
  return built;
}

/**
 * The init of each bwrap command's pid namespace (reaper.c), built beside the supervisor; undefined where it could
 * not be built (no system-call stub for the architecture), in which case the supervisor is its own init (--reap).
 */
export function reaperBeside(binary: string): string | undefined {
  const reaper = join(dirname(binary), 'coevolve-reaper');
  return existsSync(reaper) ? reaper : undefined;
}

/** The flags of each binary: the reaper has no libc, so nothing may expect one (stack canaries read libc's TLS). */
const flags = { channel: ['-static', '-O2'], reaper: ['-static', '-nostdlib', '-ffreestanding', '-fno-stack-protector', '-O2'] };

async function build(): Promise<string> {
  const source = channelSourcePath();
  if (!source) throw new Error('the command channel\'s source (supervisor.c) is not shipped with this build');
  const reaperSource = join(dirname(source), 'reaper.c');
  const hash = createHash('sha256').update(readFileSync(source)).update(existsSync(reaperSource) ? readFileSync(reaperSource) : '').digest('hex').slice(0, 16);
  const dir = join(cacheDir(), 'channel', `${process.arch}-${hash}`);
  const binary = join(dir, 'coevolve-channel');
  if (existsSync(binary)) return binary;
  await mkdir(dir, { recursive: true });
  // The reaper first: the channel's appearance is what says the folder is complete.
  if (existsSync(reaperSource)) await buildOne(reaperSource, join(dir, 'coevolve-reaper'), flags.reaper).then(() => keepReaperIfItRuns(join(dir, 'coevolve-reaper')), () => undefined);
  await buildOne(source, binary, flags.channel);
  return binary;
}

/**
 * A reaper that does not run would end every command of every sandbox (an init that dies takes its namespace with
 * it), so it is tried once: with no children, `coevolve-reaper 1` must leave with 255 through its start code, its
 * argument parsing and both system-call stubs. Anything else removes it, and the supervisor's --reap takes over.
 */
export async function keepReaperIfItRuns(reaper: string): Promise<void> {
  const r = spawnSync(reaper, ['1'], { stdio: 'ignore', timeout: 3_000 });
  if (r.status !== 255) await rm(reaper, { force: true });
}

/** Compiles to a temporary name and renames, so other processes see the binary whole or not at all. */
async function buildOne(source: string, out: string, cflags: string[]): Promise<void> {
  const tmp = `${out}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  try {
    await compile(source, tmp, cflags);
    await chmod(tmp, 0o755);
    await rename(tmp, out);
  } finally {
    await rm(tmp, { force: true });
  }
}

function compile(source: string, out: string, cflags: string[]): Promise<void> {
  const cc = process.env.CC || 'gcc';
  return new Promise((resolve, reject) => {
    const child = spawn(cc, [...cflags, '-o', out, source], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err = (err + c.toString()).slice(-4000)));
    child.on('error', (e) => reject(new Error(`the command channel is built with ${cc}, which could not run (${e.message}); install gcc (build-essential) to get the fast channel`)));
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${cc} could not build the command channel (exit ${code}): ${err.trim()}`))));
  });
}
