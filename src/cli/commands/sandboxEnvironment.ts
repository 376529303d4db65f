import type { SandboxBackend, SandboxBackendName } from '../../core/ports/sandbox.js';
import type { EnvironmentSpec } from '../../core/spec/environment.js';
import { loadEnvironment } from '../../core/spec/load.js';
import { createSandboxBackend } from '../../sandbox/factory.js';
import { readSpecTextSync } from '../../specs/workspace.js';
import { UserError } from '../errors.js';
import { selectBackend } from '../run/selectBackend.js';

export const backendChoices = ['auto', 'docker', 'bwrap', 'process'] as const;

export async function readEnvironment(file: string): Promise<EnvironmentSpec> {
  let text: string;
  try {
    text = readSpecTextSync(file);
  } catch (err) {
    throw new UserError(err instanceof Error ? err.message : String(err));
  }
  return loadEnvironment(text, file);
}

/** The backend a person asked for on the command line; "auto" picks Docker, then bubblewrap, never the process one. */
export async function backendForCli(name: string, image: string, labels: Record<string, string>): Promise<{ backend: SandboxBackend; name: SandboxBackendName; reason: string }> {
  if (!(backendChoices as readonly string[]).includes(name)) throw new UserError(`unknown --backend "${name}"; use one of: ${backendChoices.join(', ')}`, 2);
  if (name === 'docker') return { backend: createSandboxBackend('docker', { docker: { labels } }), name: 'docker', reason: 'asked for' };
  return selectBackend({ backend: name as (typeof backendChoices)[number], hosts: [], warmPool: 0 }, [image], { labels, docker: { labels } });
}
