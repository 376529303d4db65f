import type { RewardComponents } from '../../core/rollout/trajectory.js';
import type { RewardWeights } from '../protocol.js';

/** One addend of the scalar reward: weight × the component (the verifier's term also × the user's goal). */
export interface RewardTerm {
  name: string;
  formula: string;
  weight: number;
  contribution: number;
}

const f2 = (x: number): string => (Number.isInteger(x) ? String(x) : x.toFixed(2));

/**
 * The stored total written as the sum it is (the rule of src/core/rollout/rewards.ts, restated for display; a unit
 * test checks it adds up to the stored total on every rollout of a real run, and the viewer says so when not).
 */
export function rewardTerms(r: RewardComponents, w: RewardWeights): { terms: RewardTerm[]; sum: number; addsUp: boolean } {
  const terms: RewardTerm[] = [
    { name: 'task', formula: `${f2(w.verifier)} × verifier ${f2(r.verifier)} × user goal ${f2(r.userGoal)}`, weight: w.verifier, contribution: w.verifier * r.verifier * r.userGoal },
    { name: 'efficiency', formula: `${f2(w.efficiency)} × efficiency ${f2(r.efficiency)}`, weight: w.efficiency, contribution: w.efficiency * r.efficiency },
    { name: 'rubric', formula: `${f2(w.rubric)} × rubric ${f2(r.rubric)}`, weight: w.rubric, contribution: w.rubric * r.rubric },
    { name: 'satisfaction', formula: `${f2(w.satisfaction)} × satisfaction ${f2(r.satisfaction)}`, weight: w.satisfaction, contribution: w.satisfaction * r.satisfaction },
  ];
  const sum = terms.reduce((s, t) => s + t.contribution, 0);
  return { terms, sum, addsUp: Math.abs(sum - r.total) < 1e-5 };
}

/** Why a total lies outside [0, 1], in a sentence, or undefined when it does not. */
export function outOfRangeReason(r: RewardComponents, terms: RewardTerm[]): string | undefined {
  if (r.total > 1) {
    const bonus = terms.filter((t) => t.name !== 'task' && t.contribution > 0).map((t) => t.name);
    return `Above 1: the task term is at most ${f2(terms[0]?.weight ?? 1)}, and the ${bonus.join(' and ') || 'bonus'} term${bonus.length > 1 ? 's' : ''} add${bonus.length > 1 ? '' : 's'} to it. Rewards are never clamped.`;
  }
  if (r.total < 0) {
    return 'Below 0: rubric penalties (negative tags) outweigh what the rollout earned. Rewards are never clamped.';
  }
  return undefined;
}
