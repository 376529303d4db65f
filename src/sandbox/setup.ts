import type { Cancellation } from '../core/ports/cancellation.js';
import type { Sandbox, SandboxRequest } from '../core/ports/sandbox.js';

/** Thrown when a setup command of an environment fails; the message names the command and shows its output. */
export class SandboxSetupError extends Error {
  constructor(readonly index: number, readonly command: string, readonly exitCode: number, readonly output: string) {
    super(`sandbox setup command ${index + 1} failed with exit code ${exitCode}: ${command}\n${output.trim()}\nFix sandbox.setup[${index}] in the environment spec.`);
    this.name = 'SandboxSetupError';
  }
}

/** Runs the environment's setup commands in order, as root, stopping at the first that fails. */
export async function runSetup(sandbox: Sandbox, request: SandboxRequest, signal?: Cancellation): Promise<void> {
  for (const [index, command] of request.setup.entries()) {
    const result = await sandbox.exec(command, { privileged: true, signal, timeoutMs: Math.max(60_000, request.limits.commandTimeoutSec * 1000) });
    if (result.exitCode !== 0) {
      const output = [result.stdout, result.stderr].filter((s) => s.trim()).join('\n');
      throw new SandboxSetupError(index, command, result.exitCode, result.timedOut ? `${output}\n(timed out)` : output);
    }
  }
}
