import type { RewardComponents } from './trajectory.js';

/** The configured weights of the scalar reward (a run config's `reward` block). */
export interface RewardWeightsLike {
  verifier: number;
  efficiency: number;
  rubric: number;
  satisfaction: number;
}

/** One addend of the scalar reward. */
export interface RewardTerm {
  name: 'task' | 'efficiency' | 'rubric' | 'satisfaction';
  formula: string;
  weight: number;
  contribution: number;
}

/** Which rule a total was computed by: `gated` (every term × the outcome, this version) or `ungated` (runs before it). */
export type RewardRule = 'gated' | 'ungated';

const f2 = (x: number): string => (Number.isInteger(x) ? String(x) : x.toFixed(2));

/**
 * The scalar reward as the sum of its terms. The outcome (verifier × the user's goal, tau2's product rule) gates
 * every term, so shaping cannot buy reward for a failed rollout (see "The verifier's trust rule"). This is the one
 * definition: computeRewards sums it and the viewers show it.
 */
export function rewardTerms(c: Omit<RewardComponents, 'total'>, w: RewardWeightsLike, rule: RewardRule = 'gated'): RewardTerm[] {
  const outcome = c.verifier * c.userGoal;
  const gate = rule === 'gated' ? outcome : 1;
  // Each factor is a number with what it is in brackets ("1 (weight) × 0 (verifier) × 0 (user goal)"): a bare
  // "1 × verifier 0 × user goal 0" read as a chain of words and numbers with no telling which goes with which.
  const factor = (x: number, what: string): string => `${f2(x)} (${what})`;
  const by = rule === 'gated' ? ` × ${factor(outcome, 'outcome')}` : '';
  const weighted = (weight: number, value: number, what: string): string => `${factor(weight, 'weight')} × ${factor(value, what)}${by}`;
  return [
    { name: 'task', formula: `${factor(w.verifier, 'weight')} × ${factor(c.verifier, 'verifier')} × ${factor(c.userGoal, 'user goal')}`, weight: w.verifier, contribution: w.verifier * outcome },
    { name: 'efficiency', formula: weighted(w.efficiency, c.efficiency, 'efficiency'), weight: w.efficiency, contribution: w.efficiency * c.efficiency * gate },
    { name: 'rubric', formula: weighted(w.rubric, c.rubric, 'rubric'), weight: w.rubric, contribution: w.rubric * c.rubric * gate },
    { name: 'satisfaction', formula: weighted(w.satisfaction, c.satisfaction, 'satisfaction'), weight: w.satisfaction, contribution: w.satisfaction * c.satisfaction * gate },
  ];
}

/** The sum of the terms, rounded as stored. */
export function sumTerms(terms: readonly RewardTerm[]): number {
  return Math.round(terms.reduce((s, t) => s + t.contribution, 0) * 1e6) / 1e6;
}
