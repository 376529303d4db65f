import { hashString } from '../core/ports/rng.js';
import type { Rng } from '../core/ports/rng.js';
import { zeroUsage } from '../core/ports/model.js';
import type { AgentEvolverRole, Proposal } from '../core/roles/ports.js';
import type { AgentConfig, AgentGenes } from '../core/spec/agent.js';
import { agentConfigSchema, commandIdioms } from '../core/spec/agent.js';

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

export function createBuiltinAgentEvolver(): AgentEvolverRole {
  return {
    kind: 'builtin',
    label: builtinAgentEvolverLabel,
    propose: async ({ current, generation, rng }): Promise<Proposal<AgentConfig>> => {
      const { genes, change } = mutateGenes(current.genes, rng);
      const root = current.id.replace(/-g\d+-[0-9a-f]{6}$/, '');
      const id = `${root}-g${generation}-${hashString(`${current.id}/${generation}/${change}`).toString(16).padStart(8, '0').slice(0, 6)}`;
      const child = agentConfigSchema.parse({ ...current, id, genes, lineage: { parent: current.id, operator: `mutate:${change}`, generation } });
      return { ok: true, child, operator: `mutate:${change}`, usage: zeroUsage() };
    },
  };
}
