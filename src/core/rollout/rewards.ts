import { rubricScore } from '../roles/rubric.js';
import type { RunConfig } from '../spec/run.js';
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
  const w = input.weights;
  const outcome = input.verifierReward * userGoal;
  const total = outcome * (w.verifier + w.efficiency * efficiency + w.rubric * rubric + w.satisfaction * satisfaction);
  return { verifier: input.verifierReward, userGoal, satisfaction, efficiency, rubric, total: round6(total) };
}

export function isSuccess(c: RewardComponents): boolean {
  return c.verifier >= 0.999 && c.userGoal === 1;
}

function round6(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}
