import { Option, type Command } from 'commander';
import { resolve } from 'node:path';
import { writeBundle } from '../../view/bundle.js';
import { isLoopbackHost } from '../../view/requestGuard.js';
import { startViewServer } from '../../view/viewServer.js';
import { UserError } from '../errors.js';

interface ViewCliOptions {
  port: string;
  host: string;
  allowCuration?: boolean;
  allowHost: string[];
  bundle?: string;
  filter: 'accepted' | 'all';
}

const collect = (v: string, all: string[]): string[] => [...all, v];

/** `coevolve view [runsDir...]`: serve the viewer to a browser, live; or `--bundle OUT`: write a static site. */
export async function runView(sources: string[], o: ViewCliOptions): Promise<void> {
  const dirs = (sources.length ? sources : ['runs']).map((s) => resolve(s));
  if (o.bundle) {
    const report = writeBundle(resolve(o.bundle), dirs, { filters: { filter: o.filter } });
    for (const r of report.runs) {
      const left = Object.entries(r.excluded).map(([why, n]) => `${n} ${why}`).join(', ');
      process.stdout.write(`${r.key}: ${r.rollouts} rollouts${left ? ` (left out: ${left})` : ''}\n`);
    }
    process.stdout.write(`wrote ${report.files} files to ${report.out}; serve it with any static file server and open index.html\n`);
    return;
  }
  const port = Number(o.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UserError(`--port "${o.port}" is not a port number`);
  const server = await startViewServer({ sources: dirs, host: o.host, port, allowCuration: o.allowCuration ?? false, allowHosts: o.allowHost });
  process.stdout.write(`coevolve view: ${server.url} (${dirs.join(', ')})${o.allowCuration ? ' · curation allowed' : ' · read-only'}\n`);
  if (server.token) {
    // Shown once: it is not written anywhere. Browsers log in with it at /login; scripts send it as a bearer token.
    process.stdout.write(`bound to ${o.host}, reachable from other machines: log in at /login with the access token\n  ${server.token}\n`);
  }
  const stop = (): void => void server.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

export function registerViewCommand(program: Command): void {
  program
    .command('view')
    .description('Open runs in a browser (live while they run), or write them as a static site with --bundle.')
    .argument('[runsDir...]', 'run directories or folders of runs (default: runs)')
    .option('--port <n>', 'port to listen on (0: any free port)', '8765')
    .option('--host <address>', 'address to bind; anything but loopback requires the access token printed at start', '127.0.0.1')
    .option('--allow-host <name>', 'a host name browsers may use to reach the server (repeatable; loopback names and IPs always work)', collect, [])
    .option('--allow-curation', 'let the browser accept, reject, label and comment (writes curation.jsonl); otherwise read-only')
    .option('--bundle <out>', 'write a static site to this empty folder instead of serving')
    .addOption(new Option('--filter <which>', 'bundle: which rollouts, as coevolve export selects them').choices(['all', 'accepted']).default('all'))
    .action(async (sources: string[], o: ViewCliOptions) => {
      if (!o.bundle && !isLoopbackHost(o.host)) process.stderr.write(`note: --host ${o.host} is not loopback; every request needs the access token\n`);
      await runView(sources, o);
    });
}
