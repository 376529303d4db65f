import type { Command } from 'commander';
import { diagnoseSandboxes } from '../../sandbox/doctor.js';

export function registerSandboxDoctorCommand(sandbox: Command): void {
  sandbox
    .command('doctor')
    .description('Say which sandbox backends work here and, for each that does not, why and how to fix it.')
    .option('--host <url>', 'Docker endpoint to check (default DOCKER_HOST or the local socket)')
    .option('--json', 'print the result as JSON')
    .action(async (opts: { host?: string; json?: boolean }) => {
      const checks = await diagnoseSandboxes({ dockerUrl: opts.host });
      if (opts.json) {
        process.stdout.write(`${JSON.stringify({ backends: checks }, null, 2)}\n`);
      } else {
        for (const c of checks) {
          const mark = c.backend === 'process' ? 'works, NOT a sandbox' : c.works ? 'works' : 'not usable';
          process.stdout.write(`${c.backend.padEnd(8)} ${mark}: ${c.detail}\n`);
          for (const p of c.problems) process.stdout.write(`         - ${p}\n`);
        }
        const usable = checks.filter((c) => c.works && c.backend !== 'process').map((c) => c.backend);
        process.stdout.write(usable.length ? `\nUse: ${usable.join(' or ')} (--backend ${usable[0]}).\n` : '\nNo isolating backend works here; fix one of the problems above.\n');
      }
      if (!checks.some((c) => c.works && c.backend !== 'process')) process.exitCode = 1;
    });
}
