import type { SandboxRequest } from '../core/ports/sandbox.js';
import type { EnvironmentSpec } from '../core/spec/environment.js';

/** The sandbox request for one environment, labelled so the reaper can find what it leaves behind. */
export function sandboxRequestOf(env: Pick<EnvironmentSpec, 'sandbox'>, labels: Record<string, string> = {}): SandboxRequest {
  const s = env.sandbox;
  return { image: s.image, workdir: s.workdir, files: s.files, setup: s.setup, env: s.env, limits: s.limits, labels, ...(s.agentUser === 'root' ? { agentUser: 'root' as const } : {}) };
}
