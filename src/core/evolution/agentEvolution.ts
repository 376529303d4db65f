import pLimit from 'p-limit';
import type { Cancellation } from '../ports/cancellation.js';
import type { Clock } from '../ports/clock.js';
import type { Usage } from '../ports/model.js';
import type { Rng } from '../ports/rng.js';
import type { SandboxBackend } from '../ports/sandbox.js';
import type { Proposal, Roles } from '../roles/ports.js';
import { playRollout } from '../rollout/engine.js';
import type { RolloutRecord } from '../rollout/trajectory.js';
import type { AgentConfig } from '../spec/agent.js';
import type { RunConfig } from '../spec/run.js';
import { rolloutDepsOf, type GenerationContext } from './generationContext.js';

export interface AgentUpdate {
  fromId: string;
  toId: string;
  change: string;
  promoted: boolean;
  heldOut?: { incumbent: number; candidate: number };
  candidate?: AgentConfig;
  usage?: Usage;
}

const heldOutPairs = 3;
const heldOutTrials = 2;
/** The candidate must beat the incumbent's mean reward on the same held-out rollouts (a backtest, not a vote); ties keep the incumbent. */
const promotionMargin = 0;

/**
 * Evolves the agent without touching weights: the agent evolver proposes a candidate from failed trajectories
 * (built-in: gene mutation; LLM: a reflective playbook update); it is promoted only if it wins on held-out pairs.
 */
export async function evolveAgent(ctx: GenerationContext, input: { current: AgentConfig; records: RolloutRecord[] }): Promise<AgentUpdate | undefined> {
  if (!ctx.config.agent.evolve) return undefined;
  const failures = input.records
    .filter((r) => !r.hint && !r.success && r.status !== 'error')
    .slice(0, 6)
    .map((r) => ({ env: ctx.archive.envs.get(r.envId)!, steps: r.steps, reward: r.rewards.total }))
    .filter((f) => f.env !== undefined);
  let proposal: Proposal<AgentConfig>;
  try {
    proposal = await ctx.roles.agentEvolver.propose({ current: input.current, failures, generation: ctx.generation, rng: ctx.rng.fork('propose'), ...(ctx.signal ? { signal: ctx.signal } : {}) });
  } catch (err) {
    if (ctx.signal?.aborted) throw err;
    return { fromId: input.current.id, toId: input.current.id, change: `agent evolver failed: ${err instanceof Error ? err.message : String(err)}`, promoted: false };
  }
  if (!proposal.ok) return { fromId: input.current.id, toId: input.current.id, change: `no candidate: ${proposal.reason}`, promoted: false, usage: proposal.usage };
  const candidate: AgentConfig = { ...proposal.child, id: `agent-g${String(ctx.generation + 1).padStart(4, '0')}`, lineage: { parent: input.current.id, operator: proposal.operator, generation: ctx.generation + 1 } };

  // Held-out pairs: active pairs not played this generation when there are enough, so the backtest is out of sample.
  const played = new Set(input.records.map((r) => r.pairId));
  const active = ctx.archive.activePairs().filter((p) => p.lastPlayed >= 0);
  const unseen = active.filter((p) => !played.has(p.pairId));
  const pool = unseen.length >= heldOutPairs ? unseen : active;
  const pairs = ctx.rng.fork('heldout').shuffle(pool.sort((a, b) => a.pairId.localeCompare(b.pairId))).slice(0, heldOutPairs);
  if (pairs.length === 0) return { fromId: input.current.id, toId: input.current.id, change: 'no held-out pairs yet', promoted: false };

  // The same rollout ids for both agents: each faces exactly the same user and environment randomness. All plays run
  // concurrently (up to the run's limit); scores are summed in plan order, so they never depend on timing.
  const limit = pLimit(ctx.config.concurrency);
  const plays = (agent: AgentConfig, tag: string): Promise<number>[] =>
    pairs.flatMap((pair) =>
      Array.from({ length: heldOutTrials }, (_, t) =>
        limit(async () => {
          const env = ctx.archive.envs.get(pair.envId)!;
          const user = ctx.archive.users.get(pair.userId)!;
          const r = await playRollout(
            { runId: ctx.runId, runSeed: ctx.config.seed, rolloutId: `g${ctx.generation}-heldout-${pair.pairId}-t${t}`, generation: ctx.generation, pairId: pair.pairId, trial: t, hint: false, env, user, agent },
            rolloutDepsOf(ctx, { 'coevolve.purpose': `heldout-${tag}` }),
          );
          return r.rewards.total;
        }),
      ),
    );
  const meanOf = (xs: number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  const [incumbentScores, candidateScores] = await Promise.all([Promise.all(plays(input.current, 'incumbent')), Promise.all(plays(candidate, 'candidate'))]);
  const incumbent = meanOf(incumbentScores);
  const challenger = meanOf(candidateScores);
  const promoted = challenger > incumbent + promotionMargin;
  return {
    fromId: input.current.id,
    toId: promoted ? candidate.id : input.current.id,
    change: proposal.operator,
    promoted,
    heldOut: { incumbent: round4(incumbent), candidate: round4(challenger) },
    candidate,
    usage: proposal.usage,
  };
}

function round4(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}
