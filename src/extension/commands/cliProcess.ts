import { spawn, type ChildProcess } from 'node:child_process';
import { isAbsolute, resolve } from 'node:path';
import * as vscode from 'vscode';

export interface CliRun {
  child: ChildProcess;
  /** Resolves with the run directory once the CLI has announced it (stderr "… → <dir>"), or undefined if it never does. */
  runDir: Promise<string | undefined>;
  exit: Promise<number | null>;
  output(): string;
}

/**
 * Runs `node dist/cli.js <args>` as a child process: the same core as the extension, but its sandboxes and model
 * calls stay out of the extension host. On desktop VS Code process.execPath is Electron, hence ELECTRON_RUN_AS_NODE.
 * Keys arrive only through the environment (COEVOLVE_API_KEY…), never as arguments.
 */
export function startCli(extensionUri: vscode.Uri, args: string[], cwd: string, env: Record<string, string>, log: vscode.LogOutputChannel): CliRun {
  const cli = vscode.Uri.joinPath(extensionUri, 'dist', 'cli.js').fsPath;
  log.info(`starting: coevolve ${args.join(' ')} (in ${cwd})`);
  const child = spawn(process.execPath, [cli, ...args], { cwd, env: { ...process.env, ELECTRON_RUN_AS_NODE: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  let announce: (dir: string | undefined) => void = () => undefined;
  const runDir = new Promise<string | undefined>((r) => (announce = r));
  const onLine = (line: string, stream: 'stdout' | 'stderr'): void => {
    if (!line.trim()) return;
    text += `${line}\n`;
    if (stream === 'stderr' && /warning|error/i.test(line)) log.warn(`[cli] ${line}`);
    else log.info(`[cli] ${line}`);
    const m = /(?:starting|resuming) run \S+ \(.*\) → (.+)$/.exec(line);
    if (m?.[1]) announce(isAbsolute(m[1]) ? m[1] : resolve(cwd, m[1]));
  };
  for (const [stream, name] of [[child.stdout, 'stdout'], [child.stderr, 'stderr']] as const) {
    let rest = '';
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => {
      const lines = (rest + chunk).split(/\r?\n|\r/);
      rest = lines.pop() ?? '';
      for (const l of lines) onLine(l, name);
    });
    stream?.on('end', () => onLine(rest, name));
  }
  const exit = new Promise<number | null>((r) => {
    child.on('error', (err) => {
      log.error(`coevolve ${args[0]} could not start: ${err.message}`);
      announce(undefined);
      r(null);
    });
    child.on('exit', (code) => {
      log.info(`coevolve ${args[0]} exited with ${code}`);
      announce(undefined);
      r(code);
    });
  });
  return { child, runDir, exit, output: () => text };
}
