// Which sandbox the editor's Validate / Play / Testing API use: the `coevolve.sandbox.backend` setting, where
// "auto" (and "config", which has no run config to defer to here) means Docker when it answers and has the images,
// else bubblewrap. The unsandboxed process backend is refused unless the setting names it.
import type { SandboxBackendName } from '../../core/ports/sandbox.js';
import type { BackendChoice } from '../../cli/run/selectBackend.js';

export type BackendSetting = 'config' | 'auto' | SandboxBackendName;

export function parseBackendSetting(value: unknown): BackendSetting {
  return value === 'docker' || value === 'bwrap' || value === 'process' || value === 'auto' || value === 'config' ? value : 'auto';
}

/**
 * A backend for the given images, or an error saying what is missing and how to fix it (start Docker and build the
 * base image, install bubblewrap, or set the setting to "process" knowingly).
 */
export async function editorSandbox(setting: BackendSetting, images: string[], warn: (message: string) => void): Promise<BackendChoice> {
  const backend = setting === 'config' ? 'auto' : setting;
  // Loaded on first use: the sandbox backends pull in dockerode and ssh2, which activation has no need for.
  const { selectBackend } = await import('../../cli/run/selectBackend.js');
  try {
    return await selectBackend({ backend, hosts: [], warmPool: 0 }, images, { warn, allowProcessFallback: false });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new Error(`${message.replace(/\n.*$/s, '')}. Start Docker and run \`coevolve sandbox build-image\`, install bubblewrap, or set "coevolve.sandbox.backend" to "process" to run unsandboxed (development only).`);
  }
}
