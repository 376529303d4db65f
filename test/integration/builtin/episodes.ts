import { systemClock } from '../../../src/core/ports/clock.js';
import type { SandboxBackend } from '../../../src/core/ports/sandbox.js';
import { playRollout } from '../../../src/core/rollout/engine.js';
import type { RolloutRecord } from '../../../src/core/rollout/trajectory.js';
import type { AgentGenes } from '../../../src/core/spec/agent.js';
import { agentConfigSchema } from '../../../src/core/spec/agent.js';
import type { EnvironmentSpec } from '../../../src/core/spec/environment.js';
import { runConfigSchema } from '../../../src/core/spec/run.js';
import type { UserProfile } from '../../../src/core/spec/user.js';
import type { TaskFamily } from '../../../src/builtin/families/family.js';
import { createBuiltinRoles } from '../../../src/builtin/roles.js';

const runDefaults = runConfigSchema.parse({ apiVersion: 'coevolve/v1', kind: 'Run', name: 'builtin-test', population: { builtinFamilies: ['log-triage'] } });

/** Every gene at its best for the family: it asks, looks, checks, retries and uses the family's least fumbling idiom. */
export const strongGenes = (family: TaskFamily): AgentGenes => ({ askFirst: 1, questionBudget: 8, explore: 1, verify: 1, idiom: family.playbook.bestIdiom, persistence: 3 });
export const weakGenes: AgentGenes = { askFirst: 0, questionBudget: 0, explore: 0, verify: 0, idiom: 'grep', persistence: 0 };

/** One complete episode with the built-in cast through the lead's rollout engine. */
export function playBuiltin(backend: SandboxBackend, env: EnvironmentSpec, user: UserProfile, genes: AgentGenes, trial: number, labels: Record<string, string> = {}): Promise<RolloutRecord> {
  const roles = createBuiltinRoles();
  return playRollout(
    {
      runId: 'builtin-test', runSeed: 11, rolloutId: `${env.id}/${user.id}/${genes.askFirst}/${trial}`, generation: 0, pairId: `${env.id}/${user.id}`, trial, hint: false,
      env, user, agent: agentConfigSchema.parse({ apiVersion: 'coevolve/v1', kind: 'Agent', id: 'heuristic-0', genes }),
    },
    { backend, roles, budgets: runDefaults.budgets, rewardWeights: runDefaults.reward, clock: systemClock, labels },
  );
}
