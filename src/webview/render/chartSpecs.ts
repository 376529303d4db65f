// What the dashboard charts, as data: each chart's question, unit, axis label and series, read from stored metrics
// (and the agent.updated events) only. Pure, so the series and their merging are unit-tested without a browser.
import type { DashboardView, GenerationFigures, RunOverview } from '../protocol.js';

export type Unit = 'share' | 'reward' | 'level' | 'logit' | 'count' | 'usd' | 'rollouts';

export interface SeriesSpec {
  label: string;
  value: (m: GenerationFigures, run: RunOverview, view: DashboardView) => number | null;
  /** Two series drawn as the edges of a shaded interval (e.g. a 95 % interval) around the series before them. */
  interval?: 'low' | 'high';
}

export interface ChartSpec {
  id: string;
  title: string;
  /** One line under the title: what to look for, so a chart answers a question instead of showing numbers. */
  question: string;
  unit: Unit;
  series: SeriesSpec[];
  /** Shade the run's target band (success charts). */
  band?: boolean;
  /** Only charted when some generation has this (metrics version 2 fields). */
  needs?: (m: GenerationFigures) => boolean;
}

export const unitLabel: Record<Unit, string> = {
  share: '% ',
  reward: 'reward',
  level: 'design level',
  logit: 'logits',
  count: 'count',
  usd: 'USD',
  rollouts: 'rollouts',
};

const heldOutOf = (view: DashboardView, g: number): { incumbent: number; candidate: number } | undefined => view.agentUpdates.find((a) => a.generation === g)?.heldOut;

export const chartSpecs: ChartSpec[] = [
  {
    id: 'success', title: 'Success of the agent', unit: 'share', band: true,
    question: 'Inside the shaded band, the tasks sit at the edge of what the agent can do.',
    series: [
      { label: 'success', value: (m) => m.successRate },
      { label: 'verifier alone', value: (m) => m.verifierSuccessRate },
      { label: 'pass@k', value: (m, r) => m.passAtK[r.k] ?? null },
      { label: 'pass^k', value: (m, r) => m.passHatK[r.k] ?? null },
    ],
  },
  {
    id: 'classes', title: 'Pairs by class', unit: 'share',
    question: 'More frontier, fewer too easy or too hard: the loop keeps tasks learnable.',
    series: [
      { label: 'frontier', value: (m) => m.difficulty.frontier },
      { label: 'too easy', value: (m) => m.difficulty.tooEasy },
      { label: 'too hard', value: (m) => m.difficulty.tooHard },
      { label: 'in band (this generation)', value: (m) => m.inBandShare },
      { label: 'hint helps (regret > 0)', value: (m) => m.regretPositiveShare },
    ],
  },
  {
    id: 'archive', title: 'Archive in band, from pooled evidence', unit: 'share', band: false,
    question: 'The share of the whole archive the evidence places in the band.',
    needs: (m) => m.archiveBand !== undefined,
    series: [
      { label: 'in band (posterior mean)', value: (m) => m.archiveBand?.inBandShare ?? null },
      { label: 'expected in band on fresh plays', value: (m) => m.archiveBand?.expectedInBandShare ?? null },
    ],
  },
  {
    id: 'heldout', title: 'Agent on its frozen test set', unit: 'share',
    question: 'Rising means the promoted agents really got better (95 % interval shaded).',
    needs: (m) => Boolean(m.heldOut?.test),
    series: [
      { label: 'test success', value: (m) => m.heldOut?.test?.score.success ?? null },
      { label: '95 % low', value: (m) => m.heldOut?.test?.score.ci[0] ?? null, interval: 'low' },
      { label: '95 % high', value: (m) => m.heldOut?.test?.score.ci[1] ?? null, interval: 'high' },
    ],
  },
  {
    id: 'backtest', title: 'Agent promotion backtest', unit: 'reward',
    question: 'Each generation the candidate plays the incumbent\'s held-out rollouts; it is promoted when its mean reward is higher.',
    needs: (m) => m.heldOut === undefined,
    series: [
      { label: 'incumbent', value: (_m, _r, v) => heldOutOf(v, _m.index)?.incumbent ?? null },
      { label: 'candidate', value: (_m, _r, v) => heldOutOf(v, _m.index)?.candidate ?? null },
    ],
  },
  {
    id: 'reward', title: 'Reward parts', unit: 'reward',
    question: 'The mean of each component over no-hint rollouts; the total is their weighted sum.',
    series: [
      { label: 'total', value: (m) => m.meanReward },
      { label: 'verifier', value: (m) => m.rewardComponents.verifier },
      { label: 'user goal', value: (m) => m.rewardComponents.userGoal },
      { label: 'satisfaction', value: (m) => m.rewardComponents.satisfaction },
      { label: 'efficiency', value: (m) => m.rewardComponents.efficiency },
      { label: 'rubric', value: (m) => m.rewardComponents.rubric },
    ],
  },
  {
    id: 'regret', title: 'Regret', unit: 'reward',
    question: 'Mean hint reward − mean plain reward: how much a hint would help (learning signal).',
    series: [{ label: 'regret', value: (m) => m.regret }],
  },
  {
    id: 'difficulty', title: 'Design difficulty', unit: 'level',
    question: 'The specs\' own difficulty label (0–100; built-in families use levels 1–5), set by their knobs: not a measurement.',
    series: [
      { label: 'mean of played', value: (m) => m.meanDifficulty },
      { label: 'hardest played', value: (m) => m.difficulty.maxLevel },
    ],
  },
  {
    id: 'measured', title: 'Measured difficulty', unit: 'logit',
    question: 'Fitted from outcomes (Rasch), in logits, 0 = the seeds\' mean: where the two lines meet the agent solves the archive half the time; one logit above its ability, about 27 %.',
    needs: (m) => m.measuredDifficulty !== undefined,
    series: [
      { label: 'archive (environment + user)', value: (m) => m.measuredDifficulty?.archive.mean ?? null },
      { label: 'agent ability', value: (m) => m.measuredDifficulty?.agent.ability ?? null },
    ],
  },
  {
    id: 'users', title: 'Users played', unit: 'share',
    question: 'Evolved users replacing the seeds: users co-evolve.',
    series: [
      { label: 'evolved users', value: (m) => m.users.evolvedShare ?? null },
      { label: 'disclose only when asked', value: (m) => m.users.onRequestShare },
    ],
  },
  {
    id: 'archive-size', title: 'Archive and diversity', unit: 'count',
    question: 'How many environments the archive holds, across how many families and niches.',
    series: [
      { label: 'archive size', value: (m) => m.diversity.archiveSize },
      { label: 'niches', value: (m) => m.diversity.niches },
      { label: 'families', value: (m) => m.diversity.families },
    ],
  },
  {
    id: 'cost', title: 'Cost', unit: 'usd',
    question: 'Model spend per generation (0 for built-in roles).',
    series: [{ label: 'cost', value: (m) => m.costUsd }],
  },
  {
    id: 'errors', title: 'Errors and truncations', unit: 'rollouts',
    question: 'Rollouts lost to infrastructure errors, left with no outcome (verification or rating cut short), or cut by a budget.',
    series: [
      { label: 'errors', value: (m) => m.errors },
      // Absent in runs written before it was counted: the series is then not drawn (seriesOf drops an all-null one).
      { label: 'no outcome', value: (m) => m.unfinished ?? null },
      { label: 'truncated', value: (m) => m.truncated },
    ],
  },
];

export interface DrawnSeries {
  label: string;
  values: (number | null)[];
  interval?: 'low' | 'high';
}

/**
 * Every series of a chart for the generations 0..n-1 of a run; a series equal to an earlier one at every point is
 * folded into it ("success = verifier alone = pass@k"), so identical lines never hide each other.
 */
export function seriesOf(spec: ChartSpec, view: DashboardView, run: RunOverview, n: number): DrawnSeries[] {
  const out: DrawnSeries[] = [];
  for (const s of spec.series) {
    const values = Array.from({ length: n }, (_, g) => {
      const m = run.generations.find((x) => x.index === g);
      const v = m ? s.value(m, run, view) : null;
      return v === null || v === undefined || !Number.isFinite(v) ? null : v;
    });
    if (values.every((v) => v === null)) continue;
    const twin = s.interval ? undefined : out.find((o) => !o.interval && o.values.every((v, i) => v === values[i]));
    if (twin) {
      twin.label = `${twin.label} = ${s.label}`;
      continue;
    }
    out.push({ label: s.label, values, ...(s.interval ? { interval: s.interval } : {}) });
  }
  return out;
}

/** The charts a run has data for (version-2 charts only when its metrics carry those fields). */
export function chartsFor(runs: RunOverview[]): ChartSpec[] {
  const gens = runs.flatMap((r) => r.generations);
  return chartSpecs.filter((c) => !c.needs || gens.some((m) => c.needs?.(m)));
}
