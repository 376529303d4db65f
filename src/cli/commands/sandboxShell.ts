import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import { BwrapSandbox } from '../../sandbox/bwrap/bwrapBackend.js';
import { DockerSandbox } from '../../sandbox/docker/dockerSandbox.js';
import { attachShell } from '../../sandbox/docker/interactiveShell.js';
import { sandboxRequestOf } from '../../sandbox/requestOf.js';
import { UserError } from '../errors.js';
import { backendForCli, readEnvironment } from './sandboxEnvironment.js';

export function registerSandboxShellCommand(sandbox: Command): void {
  sandbox
    .command('shell')
    .description('Open an interactive shell in a sandbox of an environment (files and setup applied); it is removed when the shell exits.')
    .argument('<env>', 'environment spec (*.env.yaml)')
    .option('--backend <name>', 'auto, docker or bwrap', 'auto')
    .option('--root', 'open the shell as root instead of the agent user')
    .action(async (file: string, opts: { backend: string; root?: boolean }) => {
      if (opts.backend === 'process') throw new UserError('a shell in the unsandboxed process backend would just be your own shell; use --backend docker or bwrap', 2);
      if (!process.stdin.isTTY) throw new UserError('`coevolve sandbox shell` needs a terminal; for scripts use `coevolve sandbox exec <env> -- <command>`', 2);
      const env = await readEnvironment(file);
      // The shell is a bwrap of its own beside the sandbox's commands: it needs the per-command path's host folders.
      const chosen = await backendForCli(opts.backend, env.sandbox.image, { 'coevolve.run': 'cli-shell' }, { bwrapPerCommand: true });
      try {
        const box = await chosen.backend.start(sandboxRequestOf(env, { 'coevolve.run': 'cli-shell', 'coevolve.rollout': env.id }));
        process.stderr.write(`[${chosen.name} ${box.id}] ${env.id}: workspace ${env.sandbox.workdir}, no network; exit the shell to remove the sandbox\n`);
        try {
          if (box instanceof DockerSandbox) {
            process.exitCode = await attachShell(box, { root: opts.root });
          } else if (box instanceof BwrapSandbox) {
            const [cmd, ...args] = box.argvFor('', { interactive: true, privileged: opts.root }) as [string, ...string[]];
            const child = spawn(cmd, args, { stdio: 'inherit' });
            process.exitCode = await new Promise<number>((resolve) => child.once('exit', (code) => resolve(code ?? 0)));
          } else {
            throw new UserError(`the ${chosen.name} backend has no interactive shell`);
          }
        } finally {
          await box.stop();
        }
      } finally {
        await chosen.backend.dispose();
      }
    });
}
