import { throwIfCancelled } from '../ports/cancellation.js';
import { createRng, type Rng } from '../ports/rng.js';
import { aimCheck } from '../metrics/aimCheck.js';
import { bandCentre } from '../metrics/band.js';
import { replayScore } from '../metrics/pairEvidence.js';
import { generationMetrics } from '../metrics/generationMetrics.js';
import { generationMetricsVersion, type GenerationMetrics } from '../metrics/metricsSchema.js';
import { realismIndicatorBounds } from '../metrics/realismIndicators.js';
import type { PairStatsFull } from '../metrics/pairStats.js';
import type { RolloutRecord } from '../rollout/trajectory.js';
import type { AgentConfig } from '../spec/agent.js';
import { evolveAgent, type AgentUpdate } from './agentEvolution.js';
import type { PairEntry } from './archive.js';
import { childEvent } from './childEvents.js';
import { evolvePopulation } from './children.js';
import type { ControllerDeps } from './controllerPorts.js';
import { buildFrontierModel } from './frontierModel.js';
import { frontierFields, meanUserEffect } from './frontierMetrics.js';
import { capByEvidence, selectByEvidence } from './frontierSelection.js';
import { gen4, type GenerationContext } from './generationContext.js';
import { playPairs, scorePairs, type FirstMeasure } from './pairPlays.js';
import { planGeneration } from './plan.js';
import type { EmitOnce } from './runEvents.js';
import type { RunState } from './runStart.js';
import { testSetMetrics } from './testSet.js';

export const snapshotPath = (g: number): string => `state/g${gen4(g)}.json`;

/** Everything a generation works with; `state.agent` is replaced when a candidate is promoted. */
export interface GenerationRun {
  deps: ControllerDeps;
  state: RunState;
  labels: Record<string, string>;
  runId: string;
  emitOnce: EmitOnce;
  trainerHook: (g: number) => Promise<void>;
}

/**
 * One generation: play the planned pairs, pool their evidence, race the agent, make and screen children, retire
 * and quarantine by evidence, measure the agent on the frozen test set, run the trainer hook, record. Every random
 * choice comes from streams of (seed, generation, purpose), so a resumed generation is the one that was killed.
 */
export async function playGeneration(run: GenerationRun, g: number): Promise<GenerationMetrics> {
  const { deps, state } = run;
  const { config, clock } = deps;
  const t0 = clock.now();
  const rng = createRng(`${config.seed}/g${g}`);
  const ctx: GenerationContext = { generation: g, config, archive: state.archive, roles: deps.roles, backend: deps.backend, clock, rng, labels: run.labels, runId: run.runId, playedIds: [], ...(deps.signal ? { signal: deps.signal } : {}), ...measuredProgress(deps, g) };
  const pairs = planGeneration(state.archive, g, config, rng.fork('plan'));
  await run.emitOnce({ type: 'generation.started', generation: g, agentId: state.agent.id, pairs: pairs.map((p) => ({ pairId: p.pairId, envId: p.envId, userId: p.userId, source: p.lastPlayed >= 0 ? 'replay' : p.source })) });

  const ordered = await playPairs(deps, ctx, pairs, state.agent);
  const { stats, firstMeasure } = scorePairs(state.archive, state.agent.id, config, g, pairs, ordered);
  const playedBy = state.agent;
  const update = await agentStep(run, ctx, rng, ordered);
  const population = await populationStep(run, ctx, rng);
  const retired = await selectionStep(run, g);
  const test = await testSetMetrics(ctx, state.agent, update?.promoted ? playedBy : null);
  throwIfCancelled(deps.signal);
  await run.trainerHook(g);

  const metrics = assembleMetrics(run, { g, t0, pairs, ordered, stats, firstMeasure, population, retired, update, playedBy, test });
  await deps.recorder.writeArtifact(`ids/g${gen4(g)}.json`, JSON.stringify(ctx.playedIds ?? []));
  await deps.recorder.writeGenerationMetrics(g, metrics);
  await deps.recorder.writeArtifact(snapshotPath(g), JSON.stringify(state.archive.snapshot(g, state.agent.id)));
  await run.emitOnce({ type: 'generation.finished', generation: g });
  deps.onProgress?.({ type: 'generation.finished', generation: g, metrics });
  return metrics;
}

/** Counts the generation's measurement plays for the progress report (none is told when nobody listens). */
function measuredProgress(deps: GenerationRun['deps'], g: number): Pick<GenerationContext, 'onMeasured'> {
  const onProgress = deps.onProgress;
  if (!onProgress) return {};
  let done = 0;
  return { onMeasured: (purpose) => onProgress({ type: 'measurement.finished', generation: g, purpose, done: ++done }) };
}

/**
 * The agent evolves before the population, so a promoted agent's first curriculum is made and screened for it:
 * children made for the agent it replaced would start one generation behind it. No agent is promoted after the last
 * generation: the final agent is the one the final archive was made and measured with.
 */
async function agentStep({ deps, state, emitOnce }: GenerationRun, ctx: GenerationContext, rng: Rng, ordered: RolloutRecord[]): Promise<AgentUpdate | undefined> {
  const g = ctx.generation;
  const evolves = g < deps.config.generations - 1;
  if (evolves) deps.onProgress?.({ type: 'phase', generation: g, phase: 'evolving agent' });
  const update = evolves ? await evolveAgent({ ...ctx, rng: rng.fork('agent') }, { current: state.agent, records: ordered }) : undefined;
  if (update) {
    if (update.promoted && update.candidate) {
      state.agent = update.candidate;
      await deps.recorder.writeAgent(state.agent);
    }
    await emitOnce({ type: 'agent.updated', generation: g, fromId: update.fromId, toId: update.toId, change: update.change, promoted: update.promoted, ...(update.heldOut ? { heldOut: update.heldOut } : {}) });
  }
  throwIfCancelled(deps.signal);
  return update;
}

type Population = Awaited<ReturnType<typeof evolvePopulation>>;

/** Children (environment, user, pairing) planned for the current agent, screened, and the admitted ones recorded. */
async function populationStep({ deps, state, emitOnce }: GenerationRun, ctx: GenerationContext, rng: Rng): Promise<Population> {
  const { archive } = state;
  const model = buildFrontierModel(archive, state.agent.id, deps.config.band);
  deps.onProgress?.({ type: 'phase', generation: ctx.generation, phase: 'evolving population' });
  const population = await evolvePopulation({ ...ctx, rng: rng.fork('children') }, model, state.agent);
  for (const o of population.outcomes) {
    // A child's spec file is written before the event that announces it.
    if (o.accepted && o.kind === 'environment') await deps.recorder.writeEnvironment(archive.envs.get(o.id)!);
    if (o.accepted && o.kind === 'user') await deps.recorder.writeUser(archive.users.get(o.id)!);
    await emitOnce(childEvent(o, ctx.generation));
  }
  archive.fresh.push(...population.fresh.map((p) => p.pairId));
  return population;
}

/**
 * Selects after the children, on a model refitted with their screening plays, so admitted children can take the
 * places of pairs confidently out of band: retire what is too easy, quarantine what is too hard (never below
 * minArchive active pairs), bring back quarantined pairs a new agent may reach. Returns how many pairs left.
 */
async function selectionStep({ deps, state, emitOnce }: GenerationRun, g: number): Promise<number> {
  const { config } = deps;
  const { archive } = state;
  const selection = buildFrontierModel(archive, state.agent.id, config.band);
  let retired = 0;
  for (const change of selectByEvidence(archive, selection, config.population.minArchive)) {
    if (change.to === 'retired' || change.to === 'quarantined') retired++;
    if (change.to !== 'active') await emitOnce({ type: 'spec.retired', kind: 'environment', id: `${change.pair.envId}@${change.pair.pairId}`, reason: change.to === 'retired' ? 'too_easy' : 'too_hard', generation: g });
  }
  // A full archive makes room for the children by retiring the played pairs the model places furthest from the band.
  for (const p of capByEvidence(archive, selection, config.population.maxArchive, bandCentre(config.band))) {
    retired++;
    await emitOnce({ type: 'spec.retired', kind: 'environment', id: `${p.envId}@${p.pairId}`, reason: 'archive_full', generation: g });
  }
  // Replay spends plays where they decide something (the PLR score): undecided evidence, and, while a pair can leave
  // (above the floor, or at the cap where children take the places of pairs least likely in band), the pairs likely
  // out of band that lack the own plays to leave.
  const active = archive.activePairs().length;
  const removable = active > Math.max(1, config.population.minArchive) || active >= config.population.maxArchive;
  for (const p of archive.pairs.values()) {
    const post = selection.posterior.get(p.pairId);
    if (post) p.score = replayScore(post, removable);
  }
  throwIfCancelled(deps.signal);
  return retired;
}

interface GenerationOutcome {
  g: number;
  t0: number;
  pairs: PairEntry[];
  ordered: RolloutRecord[];
  stats: PairStatsFull[];
  firstMeasure: FirstMeasure;
  population: Population;
  retired: number;
  update: AgentUpdate | undefined;
  playedBy: AgentConfig;
  test: Awaited<ReturnType<typeof testSetMetrics>>;
}

/** The generation's metrics file: version-1 figures from its plays, version-2 figures from the refitted model. */
function assembleMetrics({ deps, state }: GenerationRun, o: GenerationOutcome): GenerationMetrics {
  const { config, clock } = deps;
  const { archive, agent } = state;
  const outcomes = o.population.outcomes;
  const rejections: Record<string, number> = {};
  for (const c of outcomes) if (!c.accepted && c.reason) rejections[c.reason] = (rejections[c.reason] ?? 0) + 1;
  const accepted = outcomes.filter((c) => c.accepted).length;
  const playedEnvs = unique(o.pairs.map((p) => archive.envs.get(p.envId)!));
  const base = generationMetrics({
    index: o.g,
    config,
    records: o.ordered,
    pairs: o.stats,
    envs: playedEnvs,
    users: unique(o.pairs.map((p) => archive.users.get(p.userId)!)),
    archiveEnvs: archive.activeEnvs(),
    children: { proposed: outcomes.length, accepted, inBandChildren: o.firstMeasure.inBand, rejections, added: accepted, retired: o.retired },
    agent: { id: agent.id, changed: o.update?.promoted ?? false, ...(o.update ? { change: o.update.change } : {}), genes: agent.genes },
    durationMs: clock.now() - o.t0,
  });
  // Version-2 figures, from a model refitted with the children's screening plays, for the agent that played.
  const measured = frontierFields(archive, buildFrontierModel(archive, o.playedBy.id, config.band), config, playedEnvs);
  const { population } = o;
  return {
    ...base,
    metricsVersion: generationMetricsVersion,
    frontierYield: {
      proposed: outcomes.length, accepted, inBand: o.firstMeasure.inBand, measured: o.firstMeasure.measured,
      share: o.firstMeasure.measured ? o.firstMeasure.inBand / o.firstMeasure.measured : 0,
      admittedShare: outcomes.length ? accepted / outcomes.length : 0,
      screenedOut: outcomes.filter((c) => c.reason === 'screened_out').length,
      aim: aimCheck(population.aimed),
    },
    ...measured,
    heldOut: { test: o.test, promotion: o.update?.promotion ?? null },
    userEffect: { users: population.userEffects, meanVsParent: meanUserEffect(archive) },
    realism: { bounds: realismIndicatorBounds, users: population.realism, allWithin: population.realism.every((r) => r.violations.length === 0 || !population.userEffects.find((u) => u.userId === r.userId)?.admitted) },
  };
}

function unique<T extends { id: string }>(xs: T[]): T[] {
  const m = new Map<string, T>();
  for (const x of xs) if (x) m.set(x.id, x);
  return [...m.values()];
}
