import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import type { TrainerHookRunner } from '../../core/evolution/controllerPorts.js';

/** Runs the trainer hook as a child process; its output goes to the run directory, its exit code to the event log. */
export const processTrainerHook: TrainerHookRunner = {
  run: ({ command, env, timeoutSec, outputPath }) =>
    new Promise((resolvePromise) => {
      const t0 = Date.now();
      const out = createWriteStream(outputPath, { flags: 'a' });
      const [cmd, ...args] = command;
      const child = spawn(cmd!, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      child.stdout.pipe(out, { end: false });
      child.stderr.pipe(out, { end: false });
      const timer = setTimeout(() => {
        out.write(`\n[coevolve] trainer hook exceeded ${timeoutSec}s; killed\n`);
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          child.kill('SIGKILL');
        }
      }, timeoutSec * 1000);
      const finish = (code: number): void => {
        clearTimeout(timer);
        out.end(() => resolvePromise({ exitCode: code, durationMs: Date.now() - t0 }));
      };
      child.on('error', (err) => {
        out.write(`[coevolve] could not start trainer hook: ${err.message}\n`);
        finish(127);
      });
      child.on('close', (code, signal) => finish(code ?? (signal ? 128 + 9 : 1)));
    }),
};
