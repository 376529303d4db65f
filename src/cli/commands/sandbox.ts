import type { Command } from 'commander';
import { registerSandboxBuildImageCommand } from './sandboxBuildImage.js';

/** `coevolve sandbox …`: build base images, check backends, run a command or a shell in an environment, reap leftovers. */
export function registerSandboxCommand(program: Command): void {
  const sandbox = program.command('sandbox').description('Sandboxes: build base images, check backends, run commands or a shell in an environment, remove leftovers.');
  registerSandboxBuildImageCommand(sandbox);
}
