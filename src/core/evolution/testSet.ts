import { signTest, wilsonInterval } from '../metrics/distributions.js';
import type { AgentScore, HeldOutMetrics } from '../metrics/metricsSchema.js';
import { verdictOf } from '../rollout/verdict.js';
import type { AgentConfig } from '../spec/agent.js';
import type { Archive } from './archive.js';
import type { GenerationContext } from './generationContext.js';
import { countOutcomes, playMeasurements, type MeasurementPlay } from './measurementPlays.js';

/** Plays per pair of the frozen test set and of one promotion look; the significance level of "worse than its predecessor" on the test set. */
export const heldOutRules = { testPlaysPerPair: 4, promotionPlaysPerPair: 3, worseAlpha: 0.05 } as const;

/** Plays of an agent on a frozen set: the same rollout ids for every agent (a paired design). */
export function frozenPlays(archive: Archive, set: 'test' | 'promotion', agent: AgentConfig, idOf: (pairIndex: number, trial: number) => string, perPair: number): MeasurementPlay[] {
  const pairs = archive.ledger.frozen?.[set] ?? [];
  return pairs.flatMap((p, i) =>
    Array.from({ length: perPair }, (_, t) => ({ rolloutId: idOf(i, t), env: archive.envs.get(p.envId)!, user: archive.users.get(p.userId)!, agent, trial: t })),
  );
}

export const testRolloutId = (pairIndex: number, trial: number): string => `test-${String(pairIndex).padStart(3, '0')}-t${trial}`;

/** The agent's outcomes on the test set, played once per agent and kept in the ledger. */
export async function testOutcomes(ctx: GenerationContext, agent: AgentConfig): Promise<(boolean | null)[]> {
  const ledger = ctx.archive.ledger;
  const known = ledger.testPlays[agent.id];
  if (known) return known;
  const records = await playMeasurements(ctx, frozenPlays(ctx.archive, 'test', agent, testRolloutId, heldOutRules.testPlaysPerPair), 'heldout-test');
  const bits = records.map(verdictOf);
  ledger.testPlays[agent.id] = bits;
  ledger.testMeasuredAt ??= {};
  ledger.testMeasuredAt[agent.id] = ctx.generation;
  return bits;
}

export function agentScore(agentId: string, bits: (boolean | null)[], measuredAt: number): AgentScore {
  const { successes, trials } = countOutcomes(bits);
  return { agentId, plays: trials, successes, success: trials ? successes / trials : 0, ci: wilsonInterval(successes, trials), measuredAt };
}

/** Wins and losses of `a` over `b` on the same plays (discordant pairs only). */
export function discordant(a: (boolean | null)[], b: (boolean | null)[]): { wins: number; losses: number } {
  let wins = 0, losses = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] === null || b[i] === null) continue;
    if (a[i] && !b[i]) wins++;
    if (!a[i] && b[i]) losses++;
  }
  return { wins, losses };
}

/**
 * The test-set block of the metrics: the current agent's score, the run's starting agent's (the baseline of the gain)
 * and the comparison with the agent it replaced. An agent promoted in generation 0 replaced one that was never
 * current at a generation's end, so the replaced agent is measured here when it has no test plays yet.
 */
export async function testSetMetrics(ctx: GenerationContext, agent: AgentConfig, previous: AgentConfig | null): Promise<HeldOutMetrics['test']> {
  const frozen = ctx.archive.ledger.frozen;
  if (!frozen || frozen.test.length === 0) return null;
  const ledger = ctx.archive.ledger;
  const prevBits = previous ? await testOutcomes(ctx, previous) : undefined;
  const bits = await testOutcomes(ctx, agent);
  const score = agentScore(agent.id, bits, ledger.testMeasuredAt?.[agent.id] ?? ctx.generation);
  let vsPrevious: NonNullable<HeldOutMetrics['test']>['vsPrevious'] = null;
  if (previous && prevBits) {
    const { wins, losses } = discordant(bits, prevBits);
    const prev = agentScore(previous.id, prevBits, 0);
    const pValue = signTest(wins, losses, 'two-sided');
    vsPrevious = { agentId: previous.id, difference: score.success - prev.success, pValue, worse: losses > wins && pValue <= heldOutRules.worseAlpha };
  }
  const first = ledger.agents[0]?.id;
  const firstBits = first ? ledger.testPlays[first] : undefined;
  const initial = first && firstBits ? agentScore(first, firstBits, ledger.testMeasuredAt?.[first] ?? 0) : undefined;
  return { pairs: frozen.test.length, playsPerPair: heldOutRules.testPlaysPerPair, source: frozen.source, score, ...(initial ? { initial } : {}), vsPrevious };
}
