import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync, rmSync } from 'node:fs';
import type { TrainerHookRunner } from '../../core/evolution/controllerPorts.js';
import { parseTrainerHookResult, type TrainerHookResult } from '../../core/spec/trainerHookResult.js';

/**
 * Runs the trainer hook as a child process; its output goes to the run directory, its exit code to the event log.
 * After a 0 exit, the result file it may have written ($COEVOLVE_HOOK_RESULT) is read and checked.
 */
export const processTrainerHook: TrainerHookRunner = {
  run: async ({ command, env, timeoutSec, outputPath, resultPath }) => {
    // What an attempt killed before it was recorded left behind must not pass for this attempt's result.
    rmSync(resultPath, { force: true });
    const r = await runHook(command, env, timeoutSec, outputPath);
    const result = r.exitCode === 0 ? readResult(resultPath) : undefined;
    return { ...r, ...(result ? { result } : {}) };
  },
};

function readResult(path: string): TrainerHookResult | undefined {
  if (!existsSync(path)) return undefined;
  return parseTrainerHookResult(readFileSync(path, 'utf8'), path);
}

/**
 * The hook inherits the run's environment minus the model endpoints' API keys: it is a trainer, not a model client,
 * and whatever it prints goes into the run directory, where keys must never be.
 */
export function hookEnvironment(parent: NodeJS.ProcessEnv, own: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(parent)) if (v !== undefined && !/^COEVOLVE_API_KEY(_|$)/.test(k)) out[k] = v;
  return { ...out, ...own };
}

function runHook(command: string[], env: Record<string, string>, timeoutSec: number, outputPath: string): Promise<{ exitCode: number; durationMs: number }> {
  return new Promise((resolvePromise) => {
    const t0 = Date.now();
    const out = createWriteStream(outputPath, { flags: 'a' });
    const [cmd, ...args] = command;
    const child = spawn(cmd!, args, { env: hookEnvironment(process.env, env), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
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
  });
}
