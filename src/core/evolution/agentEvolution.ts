import { zeroUsage, type Usage } from '../ports/model.js';
import type { Proposal } from '../roles/ports.js';
import type { RolloutRecord } from '../rollout/trajectory.js';
import { signTest } from '../metrics/distributions.js';
import type { HeldOutMetrics } from '../metrics/metricsSchema.js';
import type { AgentConfig } from '../spec/agent.js';
import type { GenerationContext } from './generationContext.js';
import { countOutcomes, outcomeOf, playMeasurements } from './measurementPlays.js';
import { agentScore, discordant, frozenPlays, heldOutRules } from './testSet.js';

export interface AgentUpdate {
  fromId: string;
  toId: string;
  change: string;
  promoted: boolean;
  heldOut?: { incumbent: number; candidate: number };
  candidate?: AgentConfig;
  usage?: Usage;
  promotion: NonNullable<HeldOutMetrics['promotion']>;
}

const promotionId = (look: number) => (pairIndex: number, trial: number): string => `promo-l${look}-${String(pairIndex).padStart(3, '0')}-t${trial}`;

/**
 * Evolves the agent without touching weights. A candidate (built-in: gene mutation; LLM: a reflective playbook
 * update) is raced against the incumbent on the frozen promotion set: each look plays both on the same fresh rollout
 * ids; discordant plays accumulate over looks; the candidate is promoted only when a one-sided exact sign test gives
 * p <= alpha / maxLooks (Bonferroni over the looks), dropped when out of looks or not ahead of the incumbent (ARCHITECTURE.md).
 */
export async function evolveAgent(ctx: GenerationContext, input: { current: AgentConfig; records: RolloutRecord[] }): Promise<AgentUpdate | undefined> {
  if (!ctx.config.agent.evolve) return undefined;
  const ledger = ctx.archive.ledger;
  const frozen = ledger.frozen;
  const none = (change: string, usage?: Usage): AgentUpdate => ({
    fromId: input.current.id, toId: input.current.id, change, promoted: false, ...(usage ? { usage } : {}),
    promotion: { pairs: frozen?.promotion.length ?? 0, alpha: heldOutRules.alpha, maxLooks: heldOutRules.maxLooks, incumbent: null, candidate: null, wins: 0, losses: 0, look: 0, pValue: null, decision: 'none', change },
  });
  if (!frozen || frozen.promotion.length === 0) return none('no promotion set');

  let usage: Usage | undefined;
  if (!ledger.race) {
    const proposal = await proposeCandidate(ctx, input);
    if (!proposal.ok) return none(proposal.reason, proposal.usage);
    usage = proposal.usage;
    const candidate: AgentConfig = { ...proposal.child, id: `agent-g${String(ctx.generation + 1).padStart(4, '0')}`, lineage: { parent: input.current.id, operator: proposal.operator, generation: ctx.generation + 1 } };
    ledger.race = { candidate, change: proposal.operator, looks: 0, wins: 0, losses: 0 };
    ledger.candidates.push({ id: candidate.id, parent: input.current.id, change: proposal.operator });
  }
  const race = ledger.race;
  const candidate = race.candidate;
  const look = race.looks + 1;
  const ids = promotionId(look);
  const cacheKey = `${input.current.id}|${look}`;
  const [incumbentBits, candidateBits] = await Promise.all([
    ledger.promotionPlays[cacheKey] ?? playMeasurements(ctx, frozenPlays(ctx.archive, 'promotion', input.current, ids, heldOutRules.promotionPlaysPerPair), 'heldout-promotion').then((rs) => rs.map(outcomeOf)),
    playMeasurements(ctx, frozenPlays(ctx.archive, 'promotion', candidate, ids, heldOutRules.promotionPlaysPerPair), 'heldout-promotion').then((rs) => rs.map(outcomeOf)),
  ]);
  const incumbentKnown = ledger.promotionPlays[cacheKey] !== undefined;
  ledger.promotionPlays[cacheKey] = incumbentBits;
  // Promotion plays are selection plays: they enter the ability fit (the test set never does).
  const perPair = heldOutRules.promotionPlaysPerPair;
  frozen.promotion.forEach((p, i) => {
    for (const [agentId, bits, skip] of [[input.current.id, incumbentBits, incumbentKnown], [candidate.id, candidateBits, false]] as const) {
      if (skip) continue;
      const { successes, trials } = countOutcomes(bits.slice(i * perPair, (i + 1) * perPair));
      const cell = (ledger.cells[`${agentId}|${p.envId}|${p.userId}`] ??= { successes: 0, trials: 0 });
      cell.successes += successes;
      cell.trials += trials;
    }
  });
  const d = discordant(candidateBits, incumbentBits);
  race.looks = look;
  race.wins += d.wins;
  race.losses += d.losses;
  const pValue = signTest(race.wins, race.losses, 'greater');
  const promoted = pValue <= heldOutRules.alpha / heldOutRules.maxLooks;
  // A race goes on only while the candidate is ahead: a tie (often no discordant play at all: the change made no
  // difference on these plays) frees the slot for a new candidate next generation.
  const dropped = !promoted && (look >= heldOutRules.maxLooks || race.wins <= race.losses);
  const incumbent = agentScore(input.current.id, incumbentBits, ctx.generation);
  const challenger = agentScore(candidate.id, candidateBits, ctx.generation);
  const promotion: AgentUpdate['promotion'] = {
    pairs: frozen.promotion.length, alpha: heldOutRules.alpha, maxLooks: heldOutRules.maxLooks, incumbent, candidate: challenger,
    wins: race.wins, losses: race.losses, look, pValue, decision: promoted ? 'promoted' : dropped ? 'dropped' : 'raced', change: race.change,
  };
  if (promoted || dropped) delete ledger.race;
  if (promoted) ledger.agents.push({ id: candidate.id, parent: input.current.id });
  return {
    fromId: input.current.id,
    toId: promoted ? candidate.id : input.current.id,
    change: race.change,
    promoted,
    heldOut: { incumbent: round4(incumbent.success), candidate: round4(challenger.success) },
    candidate,
    ...(usage ? { usage } : {}),
    promotion,
  };
}

async function proposeCandidate(ctx: GenerationContext, input: { current: AgentConfig; records: RolloutRecord[] }): Promise<Proposal<AgentConfig>> {
  // Every failed play of the generation, in plan order: a role shows what it can use (the LLM evolver its first few,
  // the built-in one diagnoses them all).
  const failures = input.records
    .filter((r) => !r.hint && !r.success && r.status !== 'error')
    .map((r) => ({ env: ctx.archive.envs.get(r.envId)!, steps: r.steps, reward: r.rewards.total }))
    .filter((f) => f.env !== undefined);
  try {
    const tried = ctx.archive.ledger.candidates.filter((c) => c.parent === input.current.id && c.change !== undefined).map((c) => c.change!);
    return await ctx.roles.agentEvolver.propose({ current: input.current, failures, generation: ctx.generation, rng: ctx.rng.fork('propose'), tried, ...(ctx.signal ? { signal: ctx.signal } : {}) });
  } catch (err) {
    if (ctx.signal?.aborted) throw err;
    return { ok: false, operator: 'agent-evolver:error', reason: `agent evolver failed: ${err instanceof Error ? err.message : String(err)}`, usage: zeroUsage() };
  }
}

function round4(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}
