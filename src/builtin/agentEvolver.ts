import { hashString } from '../core/ports/rng.js';
import type { Rng } from '../core/ports/rng.js';
import { zeroUsage } from '../core/ports/model.js';
import type { AgentEvolverRole, Proposal } from '../core/roles/ports.js';
import type { AgentConfig, AgentGenes } from '../core/spec/agent.js';
import { agentConfigSchema, commandIdioms } from '../core/spec/agent.js';
import type { AtifStep } from '../core/rollout/trajectory.js';
import { diagnoseFailure, remedies, type FailureCause } from './agentDiagnosis.js';
import { findFamily } from './families/registry.js';

export const builtinAgentEvolverLabel = 'built-in gene mutation (not an LLM)';

const round2 = (x: number): number => Math.round(x * 100) / 100;

/**
 * The size of one mutation step per gene: large enough that one step changes the default agent's success by an
 * amount a paired test on a held-out set of modest size can see (npm run bench:calibration, gene steps). Rates
 * stop at their bounds; counts move by one.
 */
export const geneSteps = { askFirst: 0.1, explore: 0.1, verify: 0.2, questionBudget: 1, persistence: 1 };
const countBounds = { questionBudget: 20, persistence: 10 };

/** One single-gene step from `genes`. */
export interface GeneMove {
  gene: keyof AgentGenes;
  from: number | string;
  to: number | string;
  /** e.g. "askFirst 0.9->1". */
  change: string;
}

/** Every single-gene step from `genes`: each rate up and down, each count up and down, each other idiom. */
export function geneMoves(genes: AgentGenes): GeneMove[] {
  const out: GeneMove[] = [];
  const push = (gene: keyof AgentGenes, to: number | string): void => {
    if (to !== genes[gene]) out.push({ gene, from: genes[gene], to, change: `${gene} ${genes[gene]}->${to}` });
  };
  for (const g of ['askFirst', 'explore', 'verify'] as const) for (const sign of [1, -1]) push(g, round2(Math.min(1, Math.max(0, genes[g] + sign * geneSteps[g]))));
  for (const g of ['questionBudget', 'persistence'] as const) for (const sign of [1, -1]) push(g, Math.min(countBounds[g], Math.max(0, genes[g] + sign * geneSteps[g])));
  for (const idiom of commandIdioms) push('idiom', idiom);
  return out;
}

/**
 * One mutation: a single-gene step drawn from `rng`, so each candidate differs from the incumbent by one change that
 * can be named and measured. Promotion is the controller's decision.
 */
export function mutateGenes(genes: AgentGenes, rng: Rng): { genes: AgentGenes; change: string } {
  const move = rng.pick(geneMoves(genes));
  return { genes: { ...genes, [move.gene]: move.to }, change: move.change };
}

/** How much more likely a step is drawn per failure that names it than a step no failure names (which keeps weight 1). */
export const diagnosisWeight = 12;

/**
 * Weights of the single-gene steps from the failures of the last generation (agentDiagnosis.ts): each failure spreads
 * `diagnosisWeight` over the steps its causes name, every step keeps weight 1 (an undiagnosed step can still be
 * tried), and steps already raced from this agent get none while another is left.
 */
export function moveWeights(genes: AgentGenes, failures: Failure[], tried: readonly string[] = []): { move: GeneMove; weight: number }[] {
  const moves = geneMoves(genes);
  const weights = moves.map(() => 1);
  for (const f of failures) {
    const named = diagnoseFailure(f.steps, f.env?.family).flatMap((c) => remedies[c]);
    const hits = moves.map((m) => named.some((r) => r.gene === m.gene && direction(m) === r.direction));
    const n = hits.filter(Boolean).length;
    hits.forEach((hit, i) => { if (hit) weights[i]! += diagnosisWeight / n; });
  }
  const fresh = moves.map((m) => !tried.includes(m.change));
  const anyFresh = fresh.some(Boolean);
  return moves.map((move, i) => ({ move, weight: anyFresh && !fresh[i] ? 0 : weights[i]! }));
}

function direction(m: GeneMove): 'up' | 'down' | 'other' {
  return typeof m.to === 'number' && typeof m.from === 'number' ? (m.to > m.from ? 'up' : 'down') : 'other';
}

/** A failed play as the evolver reads it: the agent's trace and, when known, the task's family (for its playbook). */
export interface Failure { steps: AtifStep[]; env?: { family: string } }

/**
 * The compound step: one step up of every numeric gene some failure's diagnosis names (askFirst, questionBudget,
 * verify, persistence, explore; idioms are left to single steps, since "another idiom" names none), applied at once.
 * A single step moves the default agent's held-out success by 0-8 points, which a promotion race of 24 paired plays a
 * generation often cannot tell from nothing; the diagnosed steps together are what the failures say would fix most of
 * them, and the race still decides. Undefined when fewer than two genes are named or every named gene is at its bound.
 */
export function compoundMove(genes: AgentGenes, failures: Failure[]): { genes: AgentGenes; change: string } | undefined {
  const counts = new Map<keyof AgentGenes, number>();
  for (const f of failures) {
    for (const r of new Set(diagnoseFailure(f.steps, f.env?.family).flatMap((c) => remedies[c]))) if (r.direction === 'up') counts.set(r.gene, (counts.get(r.gene) ?? 0) + 1);
  }
  // In gene order, so the same compound is named the same way whatever the counts (a raced one is not proposed again).
  const ups = geneMoves(genes).filter((m) => direction(m) === 'up' && counts.has(m.gene));
  if (ups.length < 2) return undefined;
  const next = { ...genes };
  for (const m of ups) Object.assign(next, { [m.gene]: m.to });
  return { genes: next, change: ups.map((m) => m.change).join(' + ') };
}

/** Causes a fumbled command could explain: the solution was never checked, or a check still failed after the last retry. */
const slipCauses: readonly FailureCause[] = ['unchecked', 'outOfRetries'];

/**
 * The targeted idiom step: the idiom that the agent's own family playbooks say fits most of the failed plays a
 * fumble could explain (`slipCauses`), when it is not the current one. In the idiom that fits a family the agent
 * fumbles several times less there, and no more elsewhere than in any other idiom, so this is the idiom step large
 * enough for a race to see; a random idiom step fits no failing family as often as one. Ties go to the first in
 * `commandIdioms` order (deterministic). Undefined when no such failure has a family with a playbook, or the idiom
 * that fits most is the current one.
 */
export function targetedIdiom(genes: AgentGenes, failures: Failure[]): { genes: AgentGenes; change: string } | undefined {
  const fits = new Map<AgentGenes['idiom'], number>();
  for (const f of failures) {
    const best = f.env ? findFamily(f.env.family)?.playbook.bestIdiom : undefined;
    if (best && diagnoseFailure(f.steps, f.env?.family).some((c) => slipCauses.includes(c))) fits.set(best, (fits.get(best) ?? 0) + 1);
  }
  let idiom: AgentGenes['idiom'] | undefined;
  for (const i of commandIdioms) if ((fits.get(i) ?? 0) > (idiom ? fits.get(idiom)! : 0)) idiom = i;
  if (!idiom || idiom === genes.idiom) return undefined;
  return { genes: { ...genes, idiom }, change: `idiom ${genes.idiom}->${idiom}` };
}

/** A step drawn with probability proportional to its weight. */
export function diagnosedMutation(genes: AgentGenes, failures: Failure[], rng: Rng, tried: readonly string[] = []): { genes: AgentGenes; change: string } {
  const weighted = moveWeights(genes, failures, tried);
  const total = weighted.reduce((t, w) => t + w.weight, 0);
  let x = rng.next() * total;
  const move = (weighted.find((w) => (x -= w.weight) < 0) ?? weighted[weighted.length - 1]!).move;
  return { genes: { ...genes, [move.gene]: move.to }, change: move.change };
}

export function createBuiltinAgentEvolver(): AgentEvolverRole {
  return {
    kind: 'builtin',
    label: builtinAgentEvolverLabel,
    propose: async ({ current, failures, generation, rng, tried }): Promise<Proposal<AgentConfig>> => {
      // The compound step first (the largest detectable change), then the targeted idiom; once both are raced, single
      // diagnosed steps, none of them a part of a compound already raced (a second slot racing a piece of the first
      // one's change learns little the first race does not).
      const done = (tried ?? []).map((t) => t.replace(/^mutate:/, ''));
      const compound = compoundMove(current.genes, failures);
      const idiom = targetedIdiom(current.genes, failures);
      const parts = [...new Set(done.flatMap((d) => d.split(' + ')))];
      const { genes, change } = compound && !done.includes(compound.change) ? compound : idiom && !done.includes(idiom.change) ? idiom : diagnosedMutation(current.genes, failures, rng, parts);
      const root = current.id.replace(/-g\d+-[0-9a-f]{6}$/, '');
      const id = `${root}-g${generation}-${hashString(`${current.id}/${generation}/${change}`).toString(16).padStart(8, '0').slice(0, 6)}`;
      const child = agentConfigSchema.parse({ ...current, id, genes, lineage: { parent: current.id, operator: `mutate:${change}`, generation } });
      return { ok: true, child, operator: `mutate:${change}`, usage: zeroUsage() };
    },
  };
}
