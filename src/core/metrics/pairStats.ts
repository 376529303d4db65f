import type { RolloutSummary } from '../rollout/trajectory.js';
import { hasVerdict } from '../rollout/verdict.js';
import type { RunConfig } from '../spec/run.js';
import { bandPlateau, classifyPair, type PairClass } from './band.js';
import { passAtK, passHatK, reportedK } from './passK.js';

export interface PairStatsFull {
  pairId: string;
  envId: string;
  userId: string;
  plays: number;
  successes: number;
  successRate: number;
  passAtK: Record<number, number>;
  passHatK: Record<number, number>;
  meanReward: number;
  hintPlays: number;
  hintMeanReward: number | null;
  regret: number;
  plateau: number;
  fitness: number;
  class: PairClass;
  costUsd: number;
}

const mean = (xs: number[]): number => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);

/**
 * Per-pair statistics. Success rate and pass@k use the no-hint plays only; regret = mean(R_hint) − mean(R_no_hint)
 * floored at 0 (SPADE). Fitness = w_band·plateau + w_regret·regret/0.15 + w_novelty·novelty − w_cost·cost.
 */
export function pairStats(
  pair: { pairId: string; envId: string; userId: string },
  rollouts: RolloutSummary[],
  config: Pick<RunConfig, 'band' | 'fitness'>,
  novelty = 0,
): PairStatsFull {
  // Plays with an outcome only (`verdictOf`): an infrastructure error or a cut verification or rating is no play.
  const plain = rollouts.filter((r) => !r.hint && hasVerdict(r));
  const hinted = rollouts.filter((r) => r.hint && hasVerdict(r));
  const n = plain.length;
  const c = plain.filter((r) => r.success).length;
  const p = n === 0 ? 0 : c / n;
  const meanReward = mean(plain.map((r) => r.reward));
  const hintMean = hinted.length ? mean(hinted.map((r) => r.reward)) : null;
  const regret = hintMean === null ? 0 : Math.max(0, hintMean - meanReward);
  const plateau = bandPlateau(p, config.band);
  const costUsd = rollouts.reduce((s, r) => s + r.costUsd, 0);
  const w = config.fitness;
  const fitness = w.band * plateau + w.regret * Math.min(1, regret / 0.15) + w.novelty * novelty - w.cost * costUsd;
  const at: Record<number, number> = {};
  const hat: Record<number, number> = {};
  for (const k of reportedK) {
    at[k] = passAtK(n, c, k);
    hat[k] = passHatK(n, c, k);
  }
  return {
    ...pair,
    plays: n,
    successes: c,
    successRate: p,
    passAtK: at,
    passHatK: hat,
    meanReward,
    hintPlays: hinted.length,
    hintMeanReward: hintMean,
    regret,
    plateau,
    fitness,
    class: classifyPair(p, regret, config.band),
    costUsd,
  };
}
