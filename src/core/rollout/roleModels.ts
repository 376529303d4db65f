import type { Roles } from '../roles/ports.js';
import type { RolloutRecord } from './trajectory.js';

/** The settings of the LLM roles that played a rollout (built-in roles have none); undefined when no role is an LLM. */
export function roleModels(roles: Pick<Roles, 'agent' | 'user' | 'judge'>): RolloutRecord['models'] {
  const out: NonNullable<RolloutRecord['models']> = {};
  for (const name of ['agent', 'user', 'judge'] as const) {
    const settings = roles[name].settings;
    if (settings) out[name] = settings;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}
