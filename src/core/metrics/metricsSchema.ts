import { z } from 'zod';
import { errorKinds } from '../rollout/trajectory.js';

/**
 * The stored per-generation metrics (`generations/gNNNN.json`) and the `coevolve eval` result, as zod schemas: the
 * one definition the controller writes and every viewer (report, dashboard, `coevolve view`) reads. Definitions of
 * each figure are in ARCHITECTURE.md ("Metric definitions"); this file says what each field holds.
 *
 * Versions: metrics files without `metricsVersion` are version 1 (before the measured frontier). Version 2 adds
 * the pooled-evidence archive band, the frozen held-out agent score, measured and design difficulty, the lineage
 * nodes, the user effect, realism indicators and the corrected frontier yield. A version-1 file still parses: the
 * fields it lacks are listed by `parseGenerationMetrics` so viewers can say what a run did not record.
 */
export const generationMetricsVersion = 2;
export const evalResultVersion = 1;

const share = z.number().min(0).max(1);
const count = z.number().int().min(0);
const interval = z.tuple([z.number(), z.number()]).describe('[low, high] of a 95 % interval.');

export const proportionSchema = z
  .object({
    plays: count.describe('Plays counted (no-hint plays without infrastructure error).'),
    successes: count.describe('Plays that succeeded (verifier passed and the user goal met).'),
    success: share.describe('successes / plays (0 when there are no plays).'),
    ci: interval.describe('95 % Wilson score interval of the success rate.'),
  })
  .describe('A success rate with its interval.');

export const meanSpreadSchema = z
  .object({
    n: count.describe('Number of items averaged.'),
    mean: z.number().describe('Mean over the items (0 when n = 0).'),
    sd: z.number().min(0).describe('Standard deviation over the items (0 when n < 2).'),
    se: z.number().min(0).describe('Standard error of the mean (sd / sqrt(n); 0 when n < 2).'),
  })
  .describe('Mean, spread and standard error of a set of values.');

export const pairStatsSchema = z
  .object({
    pairId: z.string(), envId: z.string(), userId: z.string(),
    plays: count, successes: count, successRate: share,
    passAtK: z.record(z.string(), z.number()), passHatK: z.record(z.string(), z.number()),
    meanReward: z.number(), hintPlays: count, hintMeanReward: z.number().nullable(),
    regret: z.number(), plateau: z.number(), fitness: z.number(),
    class: z.enum(['too_easy', 'frontier', 'too_hard']).describe('Class from this generation\'s plays alone (version 1 rule).'),
    costUsd: z.number(),
  })
  .describe('One pair\'s statistics over this generation\'s plays (k no-hint plays, k_h hint plays).');

/** Evidence classes of a pair, decided from pooled evidence with the stated confidence. */
export const evidenceClasses = ['in_band', 'too_easy', 'too_hard', 'undecided'] as const;

export const pairEvidenceSchema = z
  .object({
    pairId: z.string(), envId: z.string(), userId: z.string(),
    alpha: z.number().min(0).describe('Beta posterior alpha: prior plus discounted successes.'),
    beta: z.number().min(0).describe('Beta posterior beta: prior plus discounted failures.'),
    weightedPlays: z.number().min(0).describe('Discounted plays behind the posterior (plays by earlier agents count less).'),
    mean: share.describe('Posterior mean success for the current agent.'),
    pInBand: share.describe('P(low <= p <= high | evidence).'),
    pAbove: share.describe('P(p > high | evidence).'),
    pBelow: share.describe('P(p < low | evidence).'),
    class: z.enum(evidenceClasses).describe('in_band / too_easy / too_hard when that probability reaches the confidence, else undecided.'),
    status: z.enum(['active', 'retired', 'quarantined']).describe('Where the pair is in the archive after this generation.'),
  })
  .describe('Pooled evidence of one pair for the current agent.');

export const archiveBandSchema = z
  .object({
    confidence: share.describe('Posterior probability needed to call a pair too easy, too hard or in band.'),
    discount: share.describe('Weight kept by a play each time the agent is promoted after it (evidence of earlier agents fades).'),
    activePairs: count.describe('Active pairs (neither retired nor quarantined) after this generation.'),
    measuredPairs: count.describe('Active pairs with any play behind their posterior.'),
    inBandShare: share.describe('Share of active pairs whose posterior mean lies in the band.'),
    expectedInBandShare: share.describe('Mean over active pairs of P(p in band | evidence): the share expected in band on fresh plays.'),
    meanAbsDistance: z.number().min(0).describe('Mean over active pairs of |posterior mean - band centre|.'),
    classes: z.record(z.enum(evidenceClasses), count).describe('Active pairs per evidence class.'),
    retired: count.describe('Pairs retired so far (confidently too easy, or the archive cap).'),
    quarantined: count.describe('Pairs in quarantine so far (confidently too hard; they come back when the agent improves).'),
    pairs: z.array(pairEvidenceSchema).describe('Every pair of the archive with its evidence.'),
  })
  .describe('The archive\'s band membership from pooled evidence, for the agent that played this generation.');

export const agentScoreSchema = proportionSchema
  .extend({
    agentId: z.string().describe('The agent measured.'),
    measuredAt: z.number().int().min(0).describe('Generation in which these plays were made (a score is measured once per agent and carried forward).'),
  })
  .describe('An agent\'s success on a frozen set, with its interval.');

export const raceSchema = z
  .object({
    candidateId: z.string().describe('The candidate raced.'),
    change: z.string().describe('What it changes in the incumbent (the agent evolver\'s operator).'),
    since: count.describe('Generation of the race\'s first look.'),
    look: count.describe('Looks so far (1-based).'),
    wins: count.describe('Discordant plays it won over the race (only the candidate succeeded).'),
    losses: count.describe('Discordant plays it lost over the race (only the incumbent succeeded).'),
    evidence: z.number().min(0).describe('Mixture likelihood ratio of wins and losses (gain against none).'),
    pValue: share.describe('Anytime-valid p-value: min(1, 1 / evidence).'),
    decision: z.enum(['promoted', 'raced', 'dropped', 'superseded']).describe('superseded: another race was promoted this generation (this one was against the old incumbent).'),
    incumbent: agentScoreSchema.describe('The incumbent over the race\'s looks, with its interval.'),
    candidate: agentScoreSchema.describe('The candidate over the same plays, with its interval.'),
  })
  .describe('One candidate\'s race against the incumbent on the frozen promotion set, pooled over its looks.');

export const heldOutSchema = z
  .object({
    test: z
      .object({
        pairs: count.describe('Pairs in the frozen test set (drawn at run start; never used for selection or promotion).'),
        playsPerPair: count.describe('Plays per pair; the same rollout ids for every agent.'),
        source: z.enum(['generated', 'seeds']).describe('generated: fresh environments from the seed families; seeds: the seed environments on their own rollout ids (no built-in family to generate from).'),
        score: agentScoreSchema.describe('The current agent on the test set.'),
        initial: agentScoreSchema.optional().describe('The run\'s starting agent on the same plays: the baseline of the agent\'s gain (final score minus this). Absent in runs written before it was recorded.'),
        vsPrevious: z
          .object({ agentId: z.string(), difference: z.number(), pValue: share, worse: z.boolean() })
          .nullable()
          .describe('Paired comparison with the agent it replaced (same rollout ids): difference of success, two-sided exact sign-test p-value, and whether it is significantly worse at alpha.'),
      })
      .nullable()
      .describe('The frozen test set: the agent\'s gain is measured here and nowhere else.'),
    promotion: z
      .object({
        pairs: count.describe('Pairs in the frozen promotion set (drawn at run start, apart from the test set).'),
        alpha: share.describe('False-promotion rate of a race (at most): a candidate no better than the incumbent is promoted with probability <= alpha, however many looks (sequential sign test, ARCHITECTURE.md "Promotion rule"). Runs written before the sequential rule (no `threshold`) split alpha across maxLooks looks (Bonferroni).'),
        maxLooks: count.describe('Generations a candidate may be raced before it is dropped.'),
        threshold: z.number().positive().optional().describe('Evidence (likelihood ratio) a race must reach to promote: 1 / alpha. Absent in runs written before the sequential rule.'),
        slots: count.optional().describe('Candidates raced side by side. Absent in runs written before the sequential rule (one).'),
        playsPerLook: count.optional().describe('Paired plays per agent per look (pairs x plays per pair). Absent in runs written before the sequential rule.'),
        incumbent: agentScoreSchema.nullable().describe('The incumbent on the plays of this look.'),
        candidate: agentScoreSchema.nullable().describe('The leading candidate (the promoted one, else the strongest evidence) on the same plays (null when there was none).'),
        wins: count.describe('Paired plays the leading candidate won and the incumbent lost, over all looks of its race so far.'),
        losses: count.describe('Paired plays the leading candidate lost and the incumbent won, over all looks of its race so far.'),
        look: count.describe('Which look of the leading race this was (1-based; 0 without a candidate).'),
        pValue: share.nullable().describe('The anytime-valid p-value of the leading race, min(1, 1 / evidence); in runs written before the sequential rule, a one-sided exact sign test on the discordant pairs.'),
        evidence: z.number().min(0).nullable().optional().describe('Mixture likelihood ratio of the leading race\'s discordant plays (gain against none); promotion at >= threshold. Absent in runs written before the sequential rule.'),
        decision: z.enum(['promoted', 'raced', 'dropped', 'none']).describe('Of the leading race. promoted: evidence reached the threshold; raced: kept for another look; dropped: out of looks or not ahead of the incumbent; none: no candidate.'),
        change: z.string().describe('What the leading candidate changed (the agent evolver\'s operator), or why there was none.'),
        races: z.array(raceSchema).optional().describe('Every race looked at this generation. Absent in runs written before the sequential rule.'),
      })
      .nullable()
      .describe('The promotion race on the frozen promotion set.'),
  })
  .describe('Agent measurement on frozen held-out sets.');

export const lineageNodeSchema = z
  .object({
    kind: z.enum(['environment', 'user', 'agent']),
    id: z.string(),
    parent: z.string().nullable(),
    measured: z.number().nullable().describe('Measured difficulty (environments, users) or ability (agents) on the logit scale; null before any play.'),
    se: z.number().nullable().describe('Its standard error (Laplace approximation); null before any play.'),
    plays: count.describe('No-hint plays behind the estimate.'),
    design: z.number().nullable().describe('Design difficulty from the knobs (environments only).'),
  })
  .describe('One node of the lineage with its measured difficulty.');

export const measuredDifficultySchema = z
  .object({
    model: z.literal('rasch').describe('P(success) = sigmoid(agent - environment - user), fitted by penalised maximum likelihood.'),
    anchor: z.string().describe('The zero point of the scale.'),
    agent: z.object({ id: z.string(), ability: z.number(), se: z.number() }).describe('Ability of the agent that played this generation.'),
    archive: meanSpreadSchema.describe('Measured difficulty (environment + user) of the active pairs.'),
    environments: meanSpreadSchema.describe('Measured difficulty of the active environments.'),
    users: meanSpreadSchema.describe('Measured difficulty of the active users.'),
    plays: count.describe('Plays behind the fit (selection plays only: the test set is never fitted).'),
  })
  .describe('Difficulty measured from outcomes, on one scale for environments, users and agents.');

export const designDifficultySchema = z
  .object({
    archive: meanSpreadSchema.describe('Design difficulty (from knobs) of the active environments.'),
    played: meanSpreadSchema.describe('Design difficulty of the environments played this generation.'),
  })
  .describe('Difficulty implied by the knobs, computed the same way for seeds and children.');

export const userEffectEntrySchema = z
  .object({
    userId: z.string(),
    parentId: z.string(),
    generation: z.number().int().min(0).describe('Generation the user child was proposed in.'),
    environments: count.describe('Environments played (the same for child, parent and reference).'),
    plays: count.describe('Paired plays per user (same rollout ids).'),
    vsParent: z.object({ mean: z.number(), ci: interval }).describe('Parent success minus child success on the same plays (> 0: the child is harder).'),
    vsReference: z.object({ mean: z.number(), ci: interval }).describe('Cooperative reference success minus child success on the same plays.'),
    admitted: z.boolean().describe('Whether the child entered the archive.'),
    decision: z.enum(['admitted', 'refused', 'probation']).optional().describe('The admission test\'s state after this generation\'s look (absent in runs before user probation).'),
    looks: count.optional().describe('Looks (generations) the child has played so far; plays and vsParent pool over them.'),
    pValue: z.number().min(0).max(1).optional().describe('One-sided exact sign test p-value of the pooled discordant plays.'),
    wins: count.optional().describe('Paired plays where only the parent succeeded.'),
    losses: count.optional().describe('Paired plays where only the child succeeded.'),
  })
  .describe('A user child\'s difficulty effect as a paired comparison.');

export const userEffectSchema = z
  .object({
    users: z.array(userEffectEntrySchema).describe('User children measured this generation.'),
    meanVsParent: z.object({ n: count, mean: z.number(), ci: interval }).nullable().describe('Mean effect over every admitted user child so far, with a 95 % interval over users.'),
  })
  .describe('How much harder evolved users make the same tasks.');

export const realismIndicatorsSchema = z
  .object({
    referenceSatisfied: z.boolean().describe('A reference play with the hint met the user\'s goal.'),
    disclosureRate: z.number().nullable().describe('Share of the facts the agent asked about that the user disclosed in the dialogue.'),
    meanMessageChars: z.number().describe('Mean length of the user\'s messages.'),
    meanAgentTurns: z.number().describe('Mean agent turns per dialogue.'),
    walkAwayShare: share.describe('Share of dialogues the user ended by giving up, running out of patience or leaving the scope.'),
  })
  .describe('Observable behaviour of a user over its screening plays.');

export const realismBoundsSchema = z
  .object({
    disclosureRate: z.tuple([z.number(), z.number()]),
    meanMessageChars: z.tuple([z.number(), z.number()]),
    meanAgentTurns: z.tuple([z.number(), z.number()]),
    walkAwayShare: z.tuple([z.number(), z.number()]),
  })
  .describe('Inclusive [min, max] bounds of each indicator (fixed before tuning; see ARCHITECTURE.md).');

export const realismSchema = z
  .object({
    bounds: realismBoundsSchema,
    users: z.array(z.object({ userId: z.string(), indicators: realismIndicatorsSchema, violations: z.array(z.string()) })).describe('User children checked this generation.'),
    allWithin: z.boolean().describe('Every checked user child is within bounds and satisfiable.'),
  })
  .describe('Realism indicators of evolved users with explicit bounds.');

export const aimCheckSchema = z
  .object({
    children: count.describe('Children screened this generation: environment children and new pairings, admitted or refused (user children are judged on paired plays instead).'),
    plays: count.describe('Their screening plays.'),
    predicted: share.describe("The fitted model's mean predicted success of those children when they were planned (before any play of them), weighted by their plays; steering aims it at the band's centre."),
    screened: share.describe('The success of their screening plays: above `predicted`, the children came out easier than aimed.'),
    ci: interval.describe('95 % Wilson score interval of `screened`.'),
  })
  .describe("The steering's aim checked by the screening plays.");
export type AimCheck = z.infer<typeof aimCheckSchema>;

export const frontierYieldSchema = z
  .object({
    proposed: count.describe('Children proposed this generation.'),
    accepted: count.describe('Children admitted this generation.'),
    inBand: count.describe('Version 2: children (of any generation) whose first measurement after admission, made this generation, lies in the band. Version 1: fresh children played in band this generation.'),
    share: share.describe('Version 2: inBand / measured. Version 1: accepted / proposed.'),
    measured: count.optional().describe('Version 2: children whose first measurement after admission was made this generation.'),
    admittedShare: share.optional().describe('Version 2: accepted / proposed.'),
    screenedOut: count.optional().describe('Version 2: children refused by their screening plays.'),
    aim: aimCheckSchema.nullable().optional().describe('Version 2, from 2026-12-06 (absent before): did the steering hit its aim? null when no child was screened.'),
  })
  .describe('How many children land in the band.');

const userRealismSchema = z
  .object({
    meanFirstMessageChars: z.number(), clarificationRate: z.number(), meanDisclosureTiming: z.number().nullable(), frustrationRate: z.number(),
    stopReasons: z.record(z.string(), z.number()), satisfaction: z.record(z.string(), z.number()), distinct2: z.number(), uniformlyPositive: z.boolean(),
  })
  .describe('Sim2Real-style proxies over this generation\'s plays.');

/** Fields every version has (version 1, the format before the measured frontier). */
export const generationMetricsV1Schema = z
  .object({
    index: z.number().int().min(0),
    rollouts: count,
    pairs: count,
    successRate: share.describe('Over this generation\'s no-hint plays: verifier passed and the user goal met.'),
    verifierSuccessRate: share,
    passAtK: z.record(z.string(), z.number()),
    passHatK: z.record(z.string(), z.number()),
    meanReward: z.number(),
    rewardComponents: z.object({ verifier: z.number(), userGoal: z.number(), satisfaction: z.number(), efficiency: z.number(), rubric: z.number() }),
    regret: z.number(),
    regretPositiveShare: share,
    meanDifficulty: z.number().describe('Mean design difficulty label of the environments played this generation.'),
    difficulty: z.object({ tooEasy: share, frontier: share, tooHard: share, maxLevel: z.number(), meanKnobs: z.record(z.string(), z.number()) }),
    inBandShare: share.describe('Share of the pairs played this generation whose k-play success is in the band (not the archive; see archiveBand).'),
    frontierYield: frontierYieldSchema,
    rejections: z.record(z.string(), z.number()),
    diversity: z.object({ families: count, niches: count, skillEntropy: z.number(), archiveSize: count }),
    archive: z.object({ size: count, added: count, retired: count }),
    users: z.object({ meanPatience: z.number(), meanCooperativeness: z.number(), meanAmbiguity: z.number(), onRequestShare: z.number(), evolvedShare: z.number().optional(), meanLineageGeneration: z.number().optional(), realism: userRealismSchema }),
    agent: z.object({ id: z.string(), changed: z.boolean(), change: z.string().optional(), genes: z.record(z.string(), z.unknown()).optional() }),
    tokens: z.number(),
    costUsd: z.number(),
    errors: count,
    errorsByKind: z
      .partialRecord(z.enum(errorKinds), count)
      .optional()
      .describe('Infrastructure errors per kind (sandbox-host, sandbox-start, model, internal); they add up to errors. Absent in runs written before it was recorded.'),
    unfinished: count
      .optional()
      .describe('Plays with no outcome though no infrastructure error: the run\'s wall clock or a context overflow cut their verification or the user\'s rating (verdictOf). Left out of every rate and of the evidence, like errors. Absent in runs written before it was recorded.'),
    truncated: count,
    durationMs: z.number(),
    pairsDetail: z.array(pairStatsSchema),
  })
  .describe('Per-generation metrics, version 1 fields.');

export const generationMetricsV2Fields = {
  metricsVersion: z.literal(2).describe('Version of this file\'s format.'),
  archiveBand: archiveBandSchema,
  heldOut: heldOutSchema,
  measuredDifficulty: measuredDifficultySchema,
  designDifficulty: designDifficultySchema,
  lineage: z.array(lineageNodeSchema).describe('Every environment, user and agent so far with its measured difficulty or ability.'),
  userEffect: userEffectSchema,
  realism: realismSchema,
} as const;

export const generationMetricsSchema = generationMetricsV1Schema.extend(generationMetricsV2Fields).describe('Per-generation metrics, version 2.');

/** What a viewer gets from a stored file: every version-1 field, and the version-2 fields when the run recorded them. */
export type GenerationMetrics = z.infer<typeof generationMetricsSchema>;
export type StoredGenerationMetrics = z.infer<typeof generationMetricsV1Schema> & Partial<Pick<GenerationMetrics, keyof typeof generationMetricsV2Fields>>;
export type PairEvidenceRecord = z.infer<typeof pairEvidenceSchema>;
export type HeldOutMetrics = z.infer<typeof heldOutSchema>;
export type AgentScore = z.infer<typeof agentScoreSchema>;
export type UserEffectEntry = z.infer<typeof userEffectEntrySchema>;
export type RealismIndicators = z.infer<typeof realismIndicatorsSchema>;
export type RealismBounds = z.infer<typeof realismBoundsSchema>;
export type LineageNodeMetrics = z.infer<typeof lineageNodeSchema>;
export type MeanSpread = z.infer<typeof meanSpreadSchema>;

export interface ParsedGenerationMetrics {
  version: number;
  metrics: StoredGenerationMetrics;
  /** Version-2 fields this file does not have (an older run); viewers show them as "not recorded". */
  missing: (keyof typeof generationMetricsV2Fields)[];
}

/**
 * Reads a stored metrics file of any version this Coevolve knows. Refuses a newer version and a malformed file
 * with a message naming the field that is wrong.
 */
export function parseGenerationMetrics(raw: unknown, where = 'generation metrics'): ParsedGenerationMetrics {
  const version = typeof raw === 'object' && raw !== null && 'metricsVersion' in raw ? (raw as { metricsVersion: unknown }).metricsVersion : 1;
  if (typeof version !== 'number' || !Number.isInteger(version)) throw new Error(`${where}: metricsVersion must be an integer, got ${JSON.stringify(version)}`);
  if (version > generationMetricsVersion) throw new Error(`${where}: metrics version ${version} is newer than this Coevolve reads (${generationMetricsVersion}); upgrade Coevolve`);
  const schema = version >= 2 ? generationMetricsSchema : generationMetricsV1Schema;
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const first = parsed.error.issues[0]!;
    throw new Error(`${where}: ${first.path.join('.') || '(root)'}: ${first.message}`);
  }
  // The validated file as written (fields a later minor addition wrote are kept, not stripped).
  const metrics = raw as StoredGenerationMetrics;
  const missing = (Object.keys(generationMetricsV2Fields) as (keyof typeof generationMetricsV2Fields)[]).filter((k) => (metrics as Record<string, unknown>)[k] === undefined);
  return { version, metrics, missing };
}

// ---------------------------------------------------------------- coevolve eval

export const predictionCheckSchema = z.object({
  pairs: count.describe('Pairs with a prediction and at least two fresh plays.'),
  bias: z.number().describe('Mean (fresh success - prediction): + when the pairs turned out easier than predicted.'),
  rmsError: z.number().min(0).describe('Root mean square of (true success - prediction): the mean square error less the binomial noise of the fresh estimates; equal to the true spread for a prediction that knows only the mean.'),
  slope: z.number().nullable().describe('Least-squares slope of fresh success on the prediction: 1 calibrated, below 1 overconfident, 0 uninformative; null when every prediction is the same.'),
});
export type PredictionCheck = z.infer<typeof predictionCheckSchema>;

export const evalPairSchema = proportionSchema
  .extend({
    pairId: z.string(),
    envId: z.string(),
    userId: z.string(),
    family: z.string(),
    inBand: z.boolean().describe('The point estimate success lies in [band.low, band.high].'),
    difficulty: z.number().describe('Measured difficulty relative to the agent: -logit((successes + 0.5) / (plays + 1)).'),
    runScaleDifficulty: z.number().nullable().describe('On the run\'s scale (agent ability + relative difficulty), when evaluating a run.'),
    predicted: share
      .nullable()
      .optional()
      .describe("The run's fitted model's P(success) for this agent and pair at the evaluated generation: what the loop selected on (null when the agent is not one the run fitted; absent in results written before it)."),
    posteriorMean: share
      .nullable()
      .optional()
      .describe("The mean of the pair's pooled-evidence posterior in the run (the model's prediction plus the pair's own plays): what the run's archive in-band share counts (null or absent as for predicted)."),
    errors: count.describe('Plays lost to infrastructure errors (not counted).'),
    unfinished: count
      .optional()
      .describe("Plays whose verification or user rating did not finish (the run's wall clock or a context overflow cut it): no outcome, not counted. Absent in results written before it."),
  })
  .describe('One pair played n times on fresh rollout ids.');

export const evalResultSchema = z
  .object({
    evalVersion: z.literal(evalResultVersion),
    kind: z.literal('eval'),
    source: z
      .object({ kind: z.enum(['run', 'specs']), runDir: z.string().nullable(), runId: z.string().nullable(), generation: z.number().int().nullable(), paths: z.array(z.string()) })
      .describe('What was evaluated: a run\'s final active archive, or environment specs.'),
    agent: z.object({ id: z.string(), role: z.string(), from: z.string() }).describe('The agent played and where it came from (run final agent, a generation, a file, a model).'),
    seed: z.number().int(),
    n: z.number().int().min(20).describe('Plays per pair (at least 20).'),
    band: z.object({ low: share, high: share }),
    rolloutIds: z
      .object({ prefix: z.string(), checkedAgainst: count.describe('Rollout ids of the run checked for overlap.'), overlap: z.literal(0) })
      .describe('Fresh rollout ids: none was used by the evaluated run.'),
    pairs: z.array(evalPairSchema),
    summary: z
      .object({
        pairs: count,
        inBandShare: share.describe('Share of pairs whose point estimate is in the band.'),
        meanAbsDistance: z.number().describe('Mean |success - band centre| over pairs.'),
        meanSuccess: share,
        difficulty: meanSpreadSchema.describe('Relative measured difficulty over pairs.'),
        runScaleDifficulty: meanSpreadSchema.nullable(),
        inBandRedrawSd: z
          .number()
          .min(0)
          .optional()
          .describe('Standard deviation of inBandShare over another draw of the same plays per pair, each pair drawn again from its point estimate (absent in results written before it).'),
        trueSpread: z
          .number()
          .min(0)
          .nullable()
          .optional()
          .describe("Standard deviation of the pairs' true success: the observed variance of their estimates less its binomial part (null with fewer than two pairs; absent in results written before it)."),
        inBandExpected: share
          .nullable()
          .optional()
          .describe('The in-band share another draw of the same plays per pair would read on average: each pair shrunk toward the mean with a beta prior of the pairs\' mean success and true spread, then the beta-binomial chance that its next plays land in the band (null with fewer than two pairs; absent in results written before it).'),
        modelCheck: predictionCheckSchema.nullable().optional().describe("How well the run's fitted model's predictions foretold the fresh plays (null without predictions; absent in results written before it)."),
        evidenceCheck: predictionCheckSchema.nullable().optional().describe("The same for the pairs' pooled-evidence posterior means."),
      })
      .describe('The archive as a whole.'),
    userEffect: z
      .object({
        users: z.array(z.object({ userId: z.string(), parentId: z.string(), plays: count, vsParent: z.object({ mean: z.number(), ci: interval }), realismViolations: z.array(z.string()) })),
        mean: z.object({ n: count, mean: z.number(), ci: interval }).nullable(),
      })
      .nullable()
      .describe('Evolved users against their parents on the same environments and fresh rollout ids (run sources only).'),
  })
  .describe('Result of `coevolve eval`.');

export type EvalResult = z.infer<typeof evalResultSchema>;
export type EvalPair = z.infer<typeof evalPairSchema>;
