// `coevolve view` and `coevolve run` as a user starts them: the built CLI in a child process. The server's URL and
// (off loopback) its access token are read from what it prints.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { ownTranscriptCache } from '../../support/transcriptCache.js';

const root = join(__dirname, '../../..');
const cli = join(root, 'dist/cli.js');

export interface ViewProcess {
  url: string;
  token?: string;
  /** The server's own transcript index folder (never the user's ~/.cache/coevolve/transcripts). */
  transcriptCache: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export function startView(args: string[]): Promise<ViewProcess> {
  // `coevolve view` runs no sandbox, so the whole cache folder may be the test's own: its transcript indexes go there.
  const cache = ownTranscriptCache();
  const child = spawn(process.execPath, [cli, 'view', ...args, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, COEVOLVE_CACHE_DIR: cache } });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`coevolve view did not start: ${out}`)), 20_000);
    child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      const url = /coevolve view: (http:\/\/\S+)/.exec(out)?.[1];
      const needsToken = /--host/.test(args.join(' ')) && !args.includes('127.0.0.1');
      const token = /access token\n {2}(\S+)/.exec(out)?.[1];
      if (url && (!needsToken || token)) {
        clearTimeout(timer);
        resolve({
          url, ...(token ? { token } : {}), child, transcriptCache: join(cache, 'transcripts'),
          stop: () => new Promise((r) => {
            if (child.exitCode !== null) return r();
            child.once('exit', () => r());
            child.kill('SIGTERM');
          }),
        });
      }
    });
    child.once('exit', (code) => reject(new Error(`coevolve view exited ${code}: ${out}`)));
  });
}

export interface BackgroundRun {
  child: ChildProcess;
  /** What the run printed (stdout and stderr), for a failure message. */
  output(): string;
  /**
   * The run's exit code, waited for as long as the run makes progress: rejects only when neither its event log nor
   * its output grew for `stallMs` (a fixed deadline fails a correct run on a loaded machine; a stalled one still fails).
   */
  exit(stallMs?: number): Promise<number | null>;
}

/** A real co-evolution run of the demo config (built-in roles, bwrap sandboxes), in the background. */
export function startRun(outDir: string, generations: number): BackgroundRun {
  const child = spawn(process.execPath, [cli, 'run', join(root, 'environments/demo.run.yaml'), '--out', outDir, '--generations', String(generations), '--backend', 'bwrap'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let printed = 0;
  // Read as it comes: an unread pipe that fills up would block the run's own writes.
  const keep = (c: Buffer): void => {
    printed += c.length;
    out = (out + c.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const logSize = (): number => {
    try {
      return readdirSync(outDir).filter((n) => existsSync(join(outDir, n, 'events.jsonl'))).reduce((n, d) => n + statSync(join(outDir, d, 'events.jsonl')).size, 0);
    } catch {
      return 0;
    }
  };
  return {
    child,
    output: () => out,
    exit: (stallMs = 300_000) => new Promise((resolve, reject) => {
      let seen = -1;
      let since = Date.now();
      const timer = setInterval(() => {
        const now = logSize() + printed;
        if (now !== seen) {
          seen = now;
          since = Date.now();
        } else if (Date.now() - since > stallMs) {
          clearInterval(timer);
          reject(new Error(`the run made no progress for ${stallMs / 1000} s (its event log and output stopped growing):\n${out.slice(-3000)}`));
        }
      }, 2_000);
      void exited.then((code) => {
        clearInterval(timer);
        resolve(code);
      });
    }),
  };
}

export function writeBundle(runsDir: string, out: string): string {
  const r = spawnSync(process.execPath, [cli, 'view', runsDir, '--bundle', out], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`coevolve view --bundle failed: ${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** Records securitypolicyviolation events of every document the page loads (read with cspViolations). */
export async function watchCsp(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as unknown as { __cspViolations: string[] };
    w.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => w.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
}

export async function cspViolations(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { __cspViolations?: string[] }).__cspViolations ?? []);
}
