import { rewardTerms as termsOf, sumTerms, type RewardRule, type RewardTerm } from '../../core/rollout/rewardTerms.js';
import type { RewardComponents } from '../../core/rollout/trajectory.js';
import type { RewardWeights } from '../protocol.js';

export type { RewardTerm } from '../../core/rollout/rewardTerms.js';

const f2 = (x: number): string => (Number.isInteger(x) ? String(x) : x.toFixed(2));
const matches = (sum: number, total: number): boolean => Math.abs(sum - total) < 1e-5;

/**
 * The stored total written as the sum it is, by the core's one definition (src/core/rollout/rewardTerms.ts). A run
 * recorded before rewards were gated by the outcome is shown by the rule it was computed with, and says so; a total
 * neither rule explains is reported, never hidden.
 */
export function rewardTerms(r: RewardComponents, w: RewardWeights): { terms: RewardTerm[]; sum: number; addsUp: boolean; rule: RewardRule } {
  const gated = termsOf(r, w, 'gated');
  if (matches(sumTerms(gated), r.total)) return { terms: gated, sum: sumTerms(gated), addsUp: true, rule: 'gated' };
  const ungated = termsOf(r, w, 'ungated');
  if (matches(sumTerms(ungated), r.total)) return { terms: ungated, sum: sumTerms(ungated), addsUp: true, rule: 'ungated' };
  return { terms: gated, sum: sumTerms(gated), addsUp: false, rule: 'gated' };
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
