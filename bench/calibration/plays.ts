// Plays for the calibration bench: the built-in cast through the real rollout engine in a real sandbox, with the
// rollout ids and content seeds chosen by the caller so that cells are paired. Identical plays are played once.
import pLimit from 'p-limit';
import { systemClock } from '../../src/core/ports/clock.js';
import type { SandboxBackend } from '../../src/core/ports/sandbox.js';
import { playRollout } from '../../src/core/rollout/engine.js';
import type { RolloutRecord } from '../../src/core/rollout/trajectory.js';
import { verdictOf } from '../../src/core/rollout/verdict.js';
import type { AgentGenes } from '../../src/core/spec/agent.js';
import { agentConfigSchema } from '../../src/core/spec/agent.js';
import type { EnvironmentSpec } from '../../src/core/spec/environment.js';
import { runConfigSchema } from '../../src/core/spec/run.js';
import type { UserProfile } from '../../src/core/spec/user.js';
import { createBuiltinRoles } from '../../src/builtin/roles.js';

export interface Play {
  env: EnvironmentSpec;
  user: UserProfile;
  genes: AgentGenes;
  runSeed: number;
  /** The same id in two cells makes their plays paired: the agent and the user draw the same random numbers. */
  rolloutId: string;
}

export interface PlayResult {
  /** The play's verdict: null when it has no outcome (verdictOf). */
  success: boolean | null;
  status: string;
  stop?: string;
  turns: number;
  /** The whole record, for realism indicators of a cell. */
  record: RolloutRecord;
}

const defaults = runConfigSchema.parse({ apiVersion: 'coevolve/v1', kind: 'Run', name: 'calibration', population: { builtinFamilies: ['log-triage'] } });

export class Player {
  private readonly cache = new Map<string, Promise<PlayResult>>();
  private readonly limit;
  private readonly roles = createBuiltinRoles();
  played = 0;
  errors = 0;

  constructor(private readonly backend: SandboxBackend, concurrency: number, private readonly budgets = { ...defaults.budgets, turns: 40, wallClockSec: 120 }) {
    this.limit = pLimit(concurrency);
  }

  play(p: Play): Promise<PlayResult> {
    const key = JSON.stringify([p.env.id, p.env.instruction.length, p.user.id, p.user.behavior, p.user.persona.expertise, p.genes, p.runSeed, p.rolloutId]);
    let r = this.cache.get(key);
    if (!r) {
      r = this.limit(() => this.run(p));
      this.cache.set(key, r);
    }
    return r;
  }

  playAll(ps: Play[]): Promise<(boolean | null)[]> {
    return Promise.all(ps.map(async (p) => (await this.play(p)).success));
  }

  results(ps: Play[]): Promise<PlayResult[]> {
    return Promise.all(ps.map((p) => this.play(p)));
  }

  private async run(p: Play): Promise<PlayResult> {
    const record = await playRollout(
      {
        runId: 'calibration', runSeed: p.runSeed, rolloutId: p.rolloutId, generation: 0, pairId: `${p.env.id}/${p.user.id}`, trial: 0, hint: false,
        env: p.env, user: p.user, agent: agentConfigSchema.parse({ apiVersion: 'coevolve/v1', kind: 'Agent', id: 'calibration', genes: p.genes }),
      },
      { backend: this.backend, roles: this.roles, budgets: this.budgets, rewardWeights: defaults.reward, clock: systemClock, labels: { 'coevolve.bench': 'calibration' } },
    );
    this.played++;
    if (record.status === 'error') this.errors++;
    return {
      success: verdictOf(record),
      status: record.status,
      ...(record.userRating?.stopReason ? { stop: record.userRating.stopReason } : {}),
      turns: record.steps.filter((s) => s.source === 'agent').length,
      record,
    };
  }
}
