import type { Command as CliCommand } from 'commander';
import type { Command } from '../../core/ports/sandbox.js';
import { sandboxRequestOf } from '../../sandbox/requestOf.js';
import { UserError } from '../errors.js';
import { backendForCli, readEnvironment } from './sandboxEnvironment.js';

/**
 * `-- 'ls -la | wc'` (one word) is a shell line; `-- sh -c 'a b'` (several words) is run as exactly that argv, so
 * nothing has to be pasted into a shell line to pass arguments with spaces or quotes.
 */
export function commandOfWords(words: string[]): Command {
  return words.length === 1 ? (words[0] as string) : words;
}

export function registerSandboxExecCommand(sandbox: CliCommand): void {
  sandbox
    .command('exec')
    .description('Run one command in a fresh sandbox of an environment (its files and setup applied) and print the result.')
    .argument('<env>', 'environment spec (*.env.yaml)')
    .argument('<command...>', 'after --: one word is a shell command line (run by /bin/sh -c); several words are an argv, run exactly as given')
    .option('--backend <name>', 'auto, docker, bwrap or process (unsandboxed)', 'auto')
    .option('--timeout <seconds>', 'time limit of the command (default: the environment\'s commandTimeoutSec)')
    .option('--root', 'run as root in the sandbox instead of the agent user (as setup and verifier do)')
    .option('--json', 'print the result as JSON')
    .action(async (file: string, words: string[], opts: { backend: string; timeout?: string; root?: boolean; json?: boolean }) => {
      const env = await readEnvironment(file);
      const timeoutMs = opts.timeout === undefined ? undefined : Number(opts.timeout) * 1000;
      if (timeoutMs !== undefined && !(timeoutMs > 0)) throw new UserError(`--timeout must be a positive number of seconds, not "${opts.timeout}"`, 2);
      const chosen = await backendForCli(opts.backend, env.sandbox.image, { 'coevolve.run': 'cli-exec' });
      const cancel = new AbortController();
      const onSigint = (): void => cancel.abort();
      process.once('SIGINT', onSigint);
      try {
        const box = await chosen.backend.start(sandboxRequestOf(env, { 'coevolve.run': 'cli-exec', 'coevolve.rollout': env.id }), { signal: cancel.signal });
        try {
          const result = await box.exec(commandOfWords(words), { timeoutMs, privileged: opts.root, signal: cancel.signal });
          if (opts.json) {
            process.stdout.write(`${JSON.stringify({ environment: env.id, backend: chosen.name, sandbox: box.id, host: box.host, ...result }, null, 2)}\n`);
          } else {
            process.stdout.write(result.stdout);
            process.stderr.write(result.stderr);
            const notes = [result.timedOut ? 'timed out' : '', result.truncated ? 'output truncated' : ''].filter(Boolean).join(', ');
            process.stderr.write(`[${chosen.name} ${box.id}] exit ${result.exitCode} in ${result.durationMs} ms${notes ? ` (${notes})` : ''}\n`);
          }
          process.exitCode = result.exitCode;
        } finally {
          await box.stop();
        }
      } finally {
        process.off('SIGINT', onSigint);
        await chosen.backend.dispose();
      }
    });
}
