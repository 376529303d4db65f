import type { AfterEpisodeStep, RolloutRecord } from './trajectory.js';

/**
 * The steps after the episode whose result success is made of: the verifier's outcome and the user's rating (success =
 * verifier passed and the user's goal met, rewards.ts). The judge's tags only shape the reward, so a cut judging step
 * leaves a play's success as known as any other.
 */
const decidesSuccess: ReadonlySet<AfterEpisodeStep | string> = new Set<AfterEpisodeStep>(['verification', 'rating']);

/** What a verdict needs of a rollout: the stored record and the event log's summary both have it. */
export type VerdictInput = Pick<RolloutRecord, 'status' | 'success'> & { unfinished?: { step: string } };

/**
 * What a rollout says about the agent, the one rule every evidence path uses (pair evidence, the fitted model's cells,
 * screening, the promotion race, the held-out sets, user looks, generation metrics, `coevolve eval`): its success, or
 * null (no outcome) when an infrastructure error stopped it or the run's wall clock or a context overflow cut a step
 * success is made of. Such a play is not a failure of the agent: counting it as one (success false, reward 0) made a
 * slow verifier read as a hard task.
 */
export function verdictOf(r: VerdictInput): boolean | null {
  if (r.status === 'error') return null;
  if (r.unfinished && decidesSuccess.has(r.unfinished.step)) return null;
  return r.success;
}

/** A rollout that counts as a play: it has an outcome. */
export const hasVerdict = (r: VerdictInput): boolean => verdictOf(r) !== null;

/**
 * No outcome though no infrastructure error: a step success is made of was cut short. Counted apart from errors
 * (generation metrics' and eval's `unfinished`), so no play is lost without a count.
 */
export const cutShort = (r: VerdictInput): boolean => r.status !== 'error' && verdictOf(r) === null;

/** First minus second success on the same plays (index by index), leaving out a play with no outcome on either side. */
export function pairedDifferences(first: readonly VerdictInput[], second: readonly VerdictInput[]): number[] {
  return first.flatMap((r, i) => {
    const x = verdictOf(r), y = second[i] ? verdictOf(second[i]!) : null;
    return x === null || y === null ? [] : [(x ? 1 : 0) - (y ? 1 : 0)];
  });
}
