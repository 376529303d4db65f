import type { SandboxBackend, SandboxBackendName } from '../../core/ports/sandbox.js';
import type { EnvironmentSpec } from '../../core/spec/environment.js';
import { loadEnvironment, SpecError } from '../../core/spec/load.js';
import { createSandboxBackend } from '../../sandbox/factory.js';
import { UserError } from '../errors.js';
import { readSpecArg } from '../fileArgs.js';
import { selectBackend } from '../run/selectBackend.js';

export const backendChoices = ['auto', 'docker', 'bwrap', 'process'] as const;

export async function readEnvironment(file: string, command = 'coevolve sandbox'): Promise<EnvironmentSpec> {
  const text = readSpecArg(file, 'Environment', command);
  try {
    return loadEnvironment(text, file);
  } catch (err) {
    if (err instanceof SpecError) throw new UserError(err.message);
    throw err;
  }
}

/** The backend a person asked for on the command line; "auto" picks Docker, then bubblewrap, never the process one. */
export async function backendForCli(name: string, image: string, labels: Record<string, string>, options: { bwrapPerCommand?: boolean } = {}): Promise<{ backend: SandboxBackend; name: SandboxBackendName; reason: string }> {
  if (!(backendChoices as readonly string[]).includes(name)) throw new UserError(`unknown --backend "${name}"; use one of: ${backendChoices.join(', ')}`, 2);
  if (name === 'docker') return { backend: createSandboxBackend('docker', { docker: { labels } }), name: 'docker', reason: 'asked for' };
  return selectBackend({ backend: name as (typeof backendChoices)[number], hosts: [], warmPool: 0 }, [image], { labels, docker: { labels }, ...(options.bwrapPerCommand ? { bwrap: { channel: false } } : {}) });
}
