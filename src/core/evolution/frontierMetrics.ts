import { bandCentre } from '../metrics/band.js';
import { evidenceRules } from '../metrics/pairEvidence.js';
import type { GenerationMetrics, LineageNodeMetrics, PairEvidenceRecord } from '../metrics/metricsSchema.js';
import { meanSpread, meanWithInterval } from '../metrics/summaries.js';
import type { EnvironmentSpec } from '../spec/environment.js';
import type { RunConfig } from '../spec/run.js';
import type { Archive } from './archive.js';
import type { FrontierModel } from './frontierModel.js';

export const difficultyAnchor = 'mean measured difficulty of the seed environments = 0 and of the seed users = 0';

type FrontierFields = Pick<GenerationMetrics, 'archiveBand' | 'measuredDifficulty' | 'designDifficulty' | 'lineage'>;

/** The archive-wide version-2 figures of a generation: band membership from evidence, measured and design difficulty. */
export function frontierFields(archive: Archive, model: FrontierModel, config: Pick<RunConfig, 'band'>, played: EnvironmentSpec[]): FrontierFields {
  const { fit } = model;
  const centre = bandCentre(config.band);
  const pairs: PairEvidenceRecord[] = [...archive.pairs.values()]
    .sort((a, b) => a.pairId.localeCompare(b.pairId))
    .map((p) => {
      const post = model.posterior.get(p.pairId)!;
      return {
        pairId: p.pairId, envId: p.envId, userId: p.userId,
        alpha: post.alpha, beta: post.beta, weightedPlays: post.weightedPlays, mean: post.mean,
        pInBand: post.pInBand, pAbove: post.pAbove, pBelow: post.pBelow, class: post.class,
        status: p.retired ? 'retired' : p.quarantined ? 'quarantined' : 'active',
      };
    });
  const active = pairs.filter((p) => p.status === 'active');
  const classes = { in_band: 0, too_easy: 0, too_hard: 0, undecided: 0 };
  for (const p of active) classes[p.class]++;
  const share = (xs: number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  const inBand = (m: number): boolean => m >= config.band.low && m <= config.band.high;

  const agent = fit.agents.get(model.agentId);
  const envValue = (id: string): number => fit.environments.get(id)?.value ?? 0;
  const userValue = (id: string): number => fit.users.get(id)?.value ?? 0;
  const activeEnvIds = [...new Set(active.map((p) => p.envId))].sort();
  const activeUserIds = [...new Set(active.map((p) => p.userId))].sort();
  const lineage: LineageNodeMetrics[] = [
    ...[...archive.envs.values()].map((e) => node('environment', e.id, e.lineage.parent, fit.environments.get(e.id), e.difficulty)),
    ...[...archive.users.values()].map((u) => node('user', u.id, u.lineage.parent, fit.users.get(u.id), null)),
    ...archive.ledger.agents.map((a) => node('agent', a.id, a.parent, fit.agents.get(a.id), null)),
  ];
  return {
    archiveBand: {
      confidence: evidenceRules.confidence,
      discount: evidenceRules.discount,
      activePairs: active.length,
      measuredPairs: active.filter((p) => p.weightedPlays > 0).length,
      inBandShare: share(active.map((p) => (inBand(p.mean) ? 1 : 0))),
      expectedInBandShare: share(active.map((p) => p.pInBand)),
      meanAbsDistance: share(active.map((p) => Math.abs(p.mean - centre))),
      classes,
      retired: pairs.filter((p) => p.status === 'retired').length,
      quarantined: pairs.filter((p) => p.status === 'quarantined').length,
      pairs,
    },
    measuredDifficulty: {
      model: 'rasch',
      anchor: difficultyAnchor,
      agent: { id: model.agentId, ability: agent?.value ?? 0, se: agent?.se ?? 0 },
      archive: meanSpread(active.map((p) => envValue(p.envId) + userValue(p.userId))),
      environments: meanSpread(activeEnvIds.map(envValue)),
      users: meanSpread(activeUserIds.map(userValue)),
      plays: fit.trials,
    },
    designDifficulty: {
      archive: meanSpread(activeEnvIds.map((id) => archive.envs.get(id)?.difficulty ?? 0)),
      played: meanSpread(played.map((e) => e.difficulty)),
    },
    lineage,
  };
}

function node(kind: LineageNodeMetrics['kind'], id: string, parent: string | null, est: { value: number; se: number; trials: number } | undefined, design: number | null): LineageNodeMetrics {
  const played = est !== undefined && est.trials > 0;
  return { kind, id, parent, measured: played ? est.value : null, se: played ? est.se : null, plays: est?.trials ?? 0, design };
}

/** The running mean user effect over every admitted user child, with a 95 % interval over users. */
export function meanUserEffect(archive: Archive): GenerationMetrics['userEffect']['meanVsParent'] {
  const xs = archive.ledger.userEffects.map((u) => u.vsParent);
  if (xs.length === 0) return null;
  const r = meanWithInterval(xs);
  return { n: r.n, mean: r.mean, ci: r.ci };
}
