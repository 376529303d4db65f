import type { GenerationMetrics } from './metricsSchema.js';

/** The agent's gain over a run, read on the frozen test set (ARCHITECTURE.md "Measurement rules"). */
export interface AgentGain {
  /** The run's starting agent on the test set. */
  initial: number;
  /** The last generation's agent on the test set. */
  final: number;
  /** final − initial. */
  gain: number;
  /**
   * Where `initial` came from: `recorded` (heldOut.test.initial), `replaced` (a run written before `initial` existed
   * whose generation 0 promoted: generation 0's score minus its paired difference with the agent it replaced), or
   * `generation-0` (generation 0's agent, which is the starting one when generation 0 promoted nothing).
   */
  initialSource: 'recorded' | 'replaced' | 'generation-0';
  /** Generations whose agent was replaced by a promoted candidate. */
  promotions: number;
  /** Promotions significantly worse than their predecessor on the test set (vsPrevious.worse). */
  worse: number;
  /** Promotions without a paired comparison on the test set (none is expected; counted so none hides). */
  unmeasured: number;
}

type Generation = Pick<GenerationMetrics, 'agent' | 'heldOut'>;

/**
 * The gain of a run's agent: the final test-set score minus the starting agent's. The baseline is the starting
 * agent, not generation 0's: a promotion in generation 0 replaces it before generation 0's score is recorded, and
 * reading `heldOut[0]` would leave that promotion out of the gain. Null without a test set.
 */
export function agentGain(generations: readonly Generation[]): AgentGain | null {
  const tested = generations.filter((g) => g.heldOut.test);
  const first = tested[0]?.heldOut.test;
  const last = tested[tested.length - 1]?.heldOut.test;
  if (!first || !last) return null;
  const recorded = last.initial ?? first.initial;
  const g0 = generations[0];
  const replaced = g0?.agent.changed && g0.heldOut.test?.vsPrevious ? g0.heldOut.test.score.success - g0.heldOut.test.vsPrevious.difference : undefined;
  const initial = recorded?.success ?? replaced ?? first.score.success;
  const promoted = generations.filter((g) => g.agent.changed);
  return {
    initial,
    final: last.score.success,
    gain: last.score.success - initial,
    initialSource: recorded ? 'recorded' : replaced !== undefined ? 'replaced' : 'generation-0',
    promotions: promoted.length,
    worse: promoted.filter((g) => g.heldOut.test?.vsPrevious?.worse).length,
    unmeasured: promoted.filter((g) => !g.heldOut.test?.vsPrevious).length,
  };
}

/**
 * Steps of a series that rise (ARCHITECTURE.md "Measured difficulty"): a generation's mean above the previous
 * generation's by more than its own standard error.
 */
export function risingSteps(series: readonly { mean: number; se: number }[]): { rising: number; steps: number } {
  let rising = 0;
  for (let i = 1; i < series.length; i++) if (series[i]!.mean - series[i - 1]!.mean > series[i]!.se) rising++;
  return { rising, steps: Math.max(0, series.length - 1) };
}
