import type { Command } from 'commander';
import { registerSandboxBuildCommand } from './sandboxBuild.js';
import { registerSandboxBuildImageCommand } from './sandboxBuildImage.js';
import { registerSandboxDoctorCommand } from './sandboxDoctor.js';
import { registerSandboxExecCommand } from './sandboxExec.js';
import { registerSandboxReapCommand } from './sandboxReap.js';
import { registerSandboxShellCommand } from './sandboxShell.js';

/** `coevolve sandbox …`: build base images, check backends, run a command or a shell in an environment, reap leftovers. */
export function registerSandboxCommand(program: Command): void {
  const sandbox = program.command('sandbox').description('Sandboxes: build base images and task images, check backends, run commands or a shell in an environment, remove leftovers.');
  registerSandboxDoctorCommand(sandbox);
  registerSandboxExecCommand(sandbox);
  registerSandboxShellCommand(sandbox);
  registerSandboxBuildImageCommand(sandbox);
  registerSandboxBuildCommand(sandbox);
  registerSandboxReapCommand(sandbox);
}
