import type { Cancellation } from '../ports/cancellation.js';
import type { Clock } from '../ports/clock.js';
import type { SandboxBackend } from '../ports/sandbox.js';
import type { Roles } from '../roles/ports.js';
import type { AgentConfig } from '../spec/agent.js';
import type { EnvironmentSpec } from '../spec/environment.js';
import type { RunConfig } from '../spec/run.js';
import type { UserProfile } from '../spec/user.js';

export interface RolloutPlan {
  runId: string;
  runSeed: number;
  rolloutId: string;
  generation: number;
  pairId: string;
  trial: number;
  hint: boolean;
  env: EnvironmentSpec;
  user: UserProfile;
  agent: AgentConfig;
}

export interface RolloutDeps {
  backend: SandboxBackend;
  roles: Pick<Roles, 'agent' | 'user' | 'judge'>;
  budgets: RunConfig['budgets'];
  rewardWeights: RunConfig['reward'];
  clock: Clock;
  /** Labels for everything the sandbox creates, so the reaper can find leftovers. */
  labels?: Record<string, string>;
  /** Aborting stops the rollout; a cancelled rollout throws CancelledError and is not recorded (it is replayed on resume). */
  signal?: Cancellation;
}
