import type { Command } from 'commander';
import { reapStale } from '../../sandbox/reaper.js';

export function registerSandboxReapCommand(sandbox: Command): void {
  sandbox
    .command('reap')
    .description('Remove sandboxes (containers, volumes, local folders, cgroups) left by runs that are no longer alive.')
    .option('--host <url...>', 'Docker endpoints to clean (default DOCKER_HOST or the local socket)')
    .option('--json', 'print the result as JSON')
    .action(async (opts: { host?: string[]; json?: boolean }) => {
      const report = await reapStale({ hosts: opts.host?.map((url) => ({ url })) });
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
        return;
      }
      process.stdout.write(`removed ${report.containers} container(s), ${report.volumes} volume(s), ${report.folders} local folder(s), ${report.cgroups} cgroup(s)\n`);
      for (const u of report.unreachable) process.stdout.write(`not reached: ${u.host} (${u.reason})\n`);
    });
}
