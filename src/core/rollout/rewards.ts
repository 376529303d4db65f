import { rubricScore } from '../roles/rubric.js';
import type { RunConfig } from '../spec/run.js';
import { rewardTerms, sumTerms } from './rewardTerms.js';
import type { RewardComponents, UserRating } from './trajectory.js';

/**
 * Reward components of one rollout and the configured scalar. The verifier and the user's goal combine by
 * product (tau2's rule: the task is done only if both hold); efficiency, rubric and satisfaction shape that
 * outcome and are multiplied by it, so nothing outside the verifier can buy reward: a failed rollout earns 0
 * whatever the weights (see "The verifier's trust rule").
 */
export function computeRewards(input: {
  verifierReward: number;
  rating: UserRating | undefined;
  agentTurns: number;
  turnBudget: number;
  tags: readonly string[];
  weights: RunConfig['reward'];
}): RewardComponents {
  const userGoal = input.rating?.goalMet ? 1 : 0;
  const satisfaction = input.rating ? (input.rating.satisfaction - 1) / 4 : 0;
  const efficiency = Math.max(0, 1 - input.agentTurns / Math.max(1, input.turnBudget));
  const rubric = rubricScore(input.tags);
  const components = { verifier: input.verifierReward, userGoal, satisfaction, efficiency, rubric };
  return { ...components, total: sumTerms(rewardTerms(components, input.weights)) };
}

export function isSuccess(c: RewardComponents): boolean {
  return c.verifier >= 0.999 && c.userGoal === 1;
}
