import { addUsage, zeroUsage, type Usage } from '../ports/model.js';
import type { Proposal } from '../roles/ports.js';
import type { RolloutRecord } from '../rollout/trajectory.js';
import { verdictOf } from '../rollout/verdict.js';
import { wilsonInterval } from '../metrics/distributions.js';
import type { HeldOutMetrics } from '../metrics/metricsSchema.js';
import type { AgentConfig } from '../spec/agent.js';
import { gen4, type GenerationContext } from './generationContext.js';
import { countOutcomes, playMeasurements } from './measurementPlays.js';
import type { Ledger, Race } from './archive.js';
import { lookAt, promotionRule, raceDecision, raceEvidence, racePValue } from './promotionTest.js';
import { agentScore, frozenPlays, heldOutRules } from './testSet.js';

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

/** Promotion rollout ids are fresh every generation and shared by the incumbent and every raced candidate. */
const promotionId = (generation: number) => (pairIndex: number, trial: number): string => `promo-g${gen4(generation)}-${String(pairIndex).padStart(3, '0')}-t${trial}`;

type PromotionMetrics = NonNullable<HeldOutMetrics['promotion']>;
type RaceMetrics = NonNullable<PromotionMetrics['races']>[number];

/**
 * Evolves the agent without touching weights. Candidates (built-in: diagnosed gene steps; LLM: a reflective playbook
 * update) are raced against the incumbent on the frozen promotion set, up to `promotionRule.slots` at once: each
 * generation the incumbent and every raced candidate play the set on the same fresh rollout ids, a race's discordant
 * plays accumulate over its generations, and a candidate is promoted only when the sequential sign test of
 * promotionTest.ts reaches 1/alpha (its false-promotion rate is at most alpha, however many looks). At most one
 * promotion per generation (the strongest evidence); the other races were against the old incumbent and end with it.
 */
export async function evolveAgent(ctx: GenerationContext, input: { current: AgentConfig; records: RolloutRecord[] }): Promise<AgentUpdate | undefined> {
  if (!ctx.config.agent.evolve) return undefined;
  const ledger = ctx.archive.ledger;
  const frozen = ledger.frozen;
  const base = { pairs: frozen?.promotion.length ?? 0, alpha: promotionRule.alpha, maxLooks: promotionRule.maxLooks, threshold: 1 / promotionRule.alpha, slots: promotionRule.slots, playsPerLook: (frozen?.promotion.length ?? 0) * heldOutRules.promotionPlaysPerPair };
  const none = (change: string, usage?: Usage): AgentUpdate => ({
    fromId: input.current.id, toId: input.current.id, change, promoted: false, ...(usage ? { usage } : {}),
    promotion: { ...base, incumbent: null, candidate: null, wins: 0, losses: 0, look: 0, pValue: null, evidence: null, decision: 'none', change, races: [] },
  });
  if (!frozen || frozen.promotion.length === 0) return none('no promotion set');

  const races = openRaces(ledger, input.current.id);
  const { usage, reasons } = await fillSlots(ctx, input, races);
  if (races.length === 0) return none(reasons[0] ?? 'no candidate', usage);

  const ids = promotionId(ctx.generation);
  const perPair = heldOutRules.promotionPlaysPerPair;
  const agents = [input.current, ...races.map((r) => r.candidate)];
  const records = await playMeasurements(ctx, agents.flatMap((a) => frozenPlays(ctx.archive, 'promotion', a, ids, perPair)), 'heldout-promotion');
  const n = frozen.promotion.length * perPair;
  const bitsOf = agents.map((_, i) => records.slice(i * n, (i + 1) * n).map(verdictOf));
  // Promotion plays are selection plays: they enter the ability fit (the test set never does).
  agents.forEach((a, i) => addCells(ledger, frozen.promotion, a.id, bitsOf[i]!, perPair));

  const incumbentBits = bitsOf[0]!;
  const looked = races.map((race, i) => {
    const bits = bitsOf[i + 1]!;
    Object.assign(race, lookAt(race, bits, incumbentBits));
    add(race.incumbent, incumbentBits);
    add(race.challenger, bits);
    return { race, bits, decision: raceDecision(race) };
  });
  // One promotion per generation: the strongest evidence among the races that reached the threshold.
  const winner = looked.filter((l) => l.decision === 'promoted').sort((a, b) => raceEvidence(b.race.wins, b.race.losses) - raceEvidence(a.race.wins, a.race.losses))[0];
  const metrics: RaceMetrics[] = looked.map((l) => raceMetrics(l.race, input.current.id, winner && l !== winner ? 'superseded' : l.decision, ctx.generation));
  ledger.races = winner ? [] : looked.filter((l) => l.decision === 'raced').map((l) => l.race);
  delete ledger.race;
  if (winner) ledger.agents.push({ id: winner.race.candidate.id, parent: input.current.id });

  const lead = winner ?? [...looked].sort((a, b) => raceEvidence(b.race.wins, b.race.losses) - raceEvidence(a.race.wins, a.race.losses))[0]!;
  const leadMetrics = metrics[looked.indexOf(lead)]!;
  const incumbent = agentScore(input.current.id, incumbentBits, ctx.generation);
  const challenger = agentScore(lead.race.candidate.id, lead.bits, ctx.generation);
  const promotion: PromotionMetrics = {
    ...base, incumbent, candidate: challenger, wins: lead.race.wins, losses: lead.race.losses, look: lead.race.looks,
    pValue: leadMetrics.pValue, evidence: leadMetrics.evidence, decision: leadMetrics.decision === 'superseded' ? 'dropped' : leadMetrics.decision, change: lead.race.change, races: metrics,
  };
  return {
    fromId: input.current.id,
    toId: winner ? winner.race.candidate.id : input.current.id,
    change: lead.race.change,
    promoted: winner !== undefined,
    heldOut: { incumbent: round4(incumbent.success), candidate: round4(challenger.success) },
    candidate: lead.race.candidate,
    ...(usage ? { usage } : {}),
    promotion,
  };
}

/** The races still open against this incumbent (a snapshot from before side-by-side races holds one `race`). */
function openRaces(ledger: Ledger, incumbentId: string): Race[] {
  const old = ledger.race;
  const races = ledger.races ?? (old ? [{ ...old, since: 0, incumbent: { successes: 0, trials: 0 }, challenger: { successes: 0, trials: 0 } }] : []);
  return races.filter((r) => r.candidate.lineage.parent === incumbentId);
}

/** Proposes a candidate for every free slot; a change already raced from this incumbent is not proposed again. */
async function fillSlots(ctx: GenerationContext, input: { current: AgentConfig; records: RolloutRecord[] }, races: Race[]): Promise<{ usage?: Usage; reasons: string[] }> {
  let usage: Usage | undefined;
  const reasons: string[] = [];
  for (let slot = 0; races.length < promotionRule.slots; slot++) {
    const proposal = await proposeCandidate(ctx, input, slot, races.map((r) => r.change));
    usage = proposal.usage ? addUsage(usage ?? zeroUsage(), proposal.usage) : usage;
    if (!proposal.ok) { reasons.push(proposal.reason); break; }
    // The same agent under another name (e.g. one change written two ways) would race itself.
    const same = (a: AgentConfig): boolean => JSON.stringify([a.genes, a.playbook, a.systemPrompt]) === JSON.stringify([proposal.child.genes, proposal.child.playbook, proposal.child.systemPrompt]);
    if (races.some((r) => r.change === proposal.operator || same(r.candidate)) || same(input.current)) { reasons.push(`the agent evolver proposed ${proposal.operator} again`); break; }
    const id = `agent-g${gen4(ctx.generation + 1)}${slot === 0 ? '' : `-${String.fromCharCode(97 + slot)}`}`;
    const candidate: AgentConfig = { ...proposal.child, id, lineage: { parent: input.current.id, operator: proposal.operator, generation: ctx.generation + 1 } };
    const race: Race = { candidate, change: proposal.operator, since: ctx.generation, looks: 0, wins: 0, losses: 0, incumbent: { successes: 0, trials: 0 }, challenger: { successes: 0, trials: 0 } };
    races.push(race);
    ctx.archive.ledger.candidates.push({ id, parent: input.current.id, change: proposal.operator });
  }
  return { ...(usage ? { usage } : {}), reasons };
}

function raceMetrics(race: Race, incumbentId: string, decision: RaceMetrics['decision'], generation: number): RaceMetrics {
  const score = (agentId: string, c: { successes: number; trials: number }) => ({ agentId, plays: c.trials, successes: c.successes, success: c.trials ? c.successes / c.trials : 0, ci: wilsonInterval(c.successes, c.trials), measuredAt: generation });
  return {
    candidateId: race.candidate.id, change: race.change, since: race.since, look: race.looks, wins: race.wins, losses: race.losses,
    evidence: round4(raceEvidence(race.wins, race.losses)), pValue: round4(racePValue(race.wins, race.losses)), decision,
    incumbent: score(incumbentId, race.incumbent), candidate: score(race.candidate.id, race.challenger),
  };
}

function add(c: { successes: number; trials: number }, bits: (boolean | null)[]): void {
  const o = countOutcomes(bits);
  c.successes += o.successes;
  c.trials += o.trials;
}

function addCells(ledger: Ledger, pairs: { envId: string; userId: string }[], agentId: string, bits: (boolean | null)[], perPair: number): void {
  pairs.forEach((p, i) => add((ledger.cells[`${agentId}|${p.envId}|${p.userId}`] ??= { successes: 0, trials: 0 }), bits.slice(i * perPair, (i + 1) * perPair)));
}

async function proposeCandidate(ctx: GenerationContext, input: { current: AgentConfig; records: RolloutRecord[] }, slot: number, racing: string[]): Promise<Proposal<AgentConfig>> {
  // Every failed play of the generation, in plan order: a role shows what it can use (the LLM evolver its first few,
  // the built-in one diagnoses them all). A play with no outcome (`verdictOf`) is not a failure to learn from.
  const failures = input.records
    .filter((r) => !r.hint && verdictOf(r) === false)
    .map((r) => ({ env: ctx.archive.envs.get(r.envId)!, steps: r.steps, reward: r.rewards.total }))
    .filter((f) => f.env !== undefined);
  try {
    const tried = [...new Set([...ctx.archive.ledger.candidates.filter((c) => c.parent === input.current.id && c.change !== undefined).map((c) => c.change!), ...racing])];
    return await ctx.roles.agentEvolver.propose({ current: input.current, failures, generation: ctx.generation, rng: ctx.rng.fork(slot === 0 ? 'propose' : `propose/${slot}`), tried, ...(ctx.signal ? { signal: ctx.signal } : {}) });
  } catch (err) {
    if (ctx.signal?.aborted) throw err;
    return { ok: false, operator: 'agent-evolver:error', reason: `agent evolver failed: ${err instanceof Error ? err.message : String(err)}`, usage: zeroUsage() };
  }
}

function round4(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}
