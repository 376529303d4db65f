// `coevolve view` and `coevolve run` as a user starts them: the built CLI in a child process. The server's URL and
// (off loopback) its access token are read from what it prints.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { Page } from 'playwright-core';

const root = join(__dirname, '../../..');
const cli = join(root, 'dist/cli.js');

export interface ViewProcess {
  url: string;
  token?: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export function startView(args: string[]): Promise<ViewProcess> {
  const child = spawn(process.execPath, [cli, 'view', ...args, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
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
          url, ...(token ? { token } : {}), child,
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

/** A real co-evolution run of the demo config (built-in roles, bwrap sandboxes), in the background. */
export function startRun(outDir: string, generations: number): ChildProcess {
  return spawn(process.execPath, [cli, 'run', join(root, 'environments/demo.run.yaml'), '--out', outDir, '--generations', String(generations), '--backend', 'bwrap'], { stdio: ['ignore', 'pipe', 'pipe'] });
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
