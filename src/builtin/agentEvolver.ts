import { hashString } from '../core/ports/rng.js';
import type { Rng } from '../core/ports/rng.js';
import { zeroUsage } from '../core/ports/model.js';
import type { AgentEvolverRole, Proposal } from '../core/roles/ports.js';
import type { AgentConfig, AgentGenes } from '../core/spec/agent.js';
import { agentConfigSchema, commandIdioms } from '../core/spec/agent.js';

export const builtinAgentEvolverLabel = 'built-in gene mutation (not an LLM)';

const clamp = (x: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, x));
const round2 = (x: number): number => Math.round(x * 100) / 100;

/** A standard normal draw (Box-Muller) from the caller's stream. */
function gaussian(rng: Rng): number {
  const u = Math.max(rng.next(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
}

/**
 * Mutates one or two strategy genes (gaussian steps on the rates, ±1 on the counts, an idiom swap), so each
 * candidate differs from the incumbent by a change that can be named. Promotion is the controller's decision.
 */
export function mutateGenes(genes: AgentGenes, rng: Rng): { genes: AgentGenes; change: string } {
  const out: AgentGenes = { ...genes };
  const changes: string[] = [];
  const names = rng.shuffle(['askFirst', 'questionBudget', 'explore', 'verify', 'idiom', 'persistence'] as const).slice(0, rng.chance(0.5) ? 1 : 2);
  for (const g of names) {
    if (g === 'idiom') {
      out.idiom = rng.pick(commandIdioms.filter((i) => i !== genes.idiom));
      changes.push(`idiom ${genes.idiom}->${out.idiom}`);
    } else if (g === 'questionBudget' || g === 'persistence') {
      const max = g === 'questionBudget' ? 20 : 10;
      const next = clamp(genes[g] + (rng.chance(0.5) ? 1 : -1), 0, max);
      out[g] = next === genes[g] ? clamp(genes[g] + (next === 0 ? 1 : -1), 0, max) : next;
      changes.push(`${g} ${genes[g]}->${out[g]}`);
    } else {
      out[g] = round2(clamp(genes[g] + 0.15 * gaussian(rng), 0, 1));
      changes.push(`${g} ${genes[g]}->${out[g]}`);
    }
  }
  return { genes: out, change: changes.join(', ') };
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
