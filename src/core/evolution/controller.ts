import pLimit from 'p-limit';
import { CancelledError, throwIfCancelled, type Cancellation } from '../ports/cancellation.js';
import type { Clock } from '../ports/clock.js';
import { createRng } from '../ports/rng.js';
import type { RunEvent, RunEventBody, RunRecorder } from '../ports/runStore.js';
import type { SandboxBackend } from '../ports/sandbox.js';
import type { Roles } from '../roles/ports.js';
import { isRetryable, playRollout, type RolloutDeps, type RolloutPlan } from '../rollout/engine.js';
import { summarizeRollout, type RolloutRecord } from '../rollout/trajectory.js';
import { agentConfigSchema, type AgentConfig } from '../spec/agent.js';
import { specApiVersion } from '../spec/common.js';
import type { EnvironmentSpec } from '../spec/environment.js';
import type { RunConfig } from '../spec/run.js';
import type { AgentModelSwitch, TrainerHookResult } from '../spec/trainerHookResult.js';
import type { UserProfile } from '../spec/user.js';
import { aimCheck } from '../metrics/aimCheck.js';
import { bandCentre, inBand } from '../metrics/band.js';
import { replayScore } from '../metrics/pairEvidence.js';
import { generationMetrics } from '../metrics/generationMetrics.js';
import { generationMetricsVersion, type GenerationMetrics } from '../metrics/metricsSchema.js';
import { realismIndicatorBounds } from '../metrics/realismIndicators.js';
import { pairStats, type PairStatsFull } from '../metrics/pairStats.js';
import { evolveAgent } from './agentEvolution.js';
import { Archive, type PairEntry } from './archive.js';
import { childEvent } from './childEvents.js';
import { evolvePopulation } from './children.js';
import type { ControllerProgress, RunHistory, TrainerHookRunner } from './controllerPorts.js';
import { rolloutDepsOf, type GenerationContext } from './generationContext.js';
import { planGeneration } from './plan.js';
import { capByEvidence, drawFrozenSets, selectByEvidence, type HeldOutSeeds } from './frontierSelection.js';
import { buildFrontierModel } from './frontierModel.js';
import { frontierFields, meanUserEffect } from './frontierMetrics.js';
import { testSetMetrics } from './testSet.js';

export interface ControllerDeps {
  config: RunConfig;
  recorder: RunRecorder;
  backend: SandboxBackend;
  roles: Roles;
  seeds: { environments: EnvironmentSpec[]; users: UserProfile[]; heldOut?: HeldOutSeeds };
  /** Present when resuming: what the run directory already holds. */
  history?: RunHistory;
  hook?: TrainerHookRunner;
  /** Puts the agent role on the model a trainer hook handed back, from the next rollout on (absent: not an LLM). */
  switchAgentModel?: (to: AgentModelSwitch) => void;
  clock: Clock;
  signal?: Cancellation;
  onProgress?: (p: ControllerProgress) => void;
}

export interface RunOutcome {
  status: 'completed' | 'stopped';
  generationsDone: number;
  metrics: GenerationMetrics[];
}

const gen4 = (g: number): string => String(g).padStart(4, '0');
export const snapshotPath = (g: number): string => `state/g${gen4(g)}.json`;

/**
 * The co-evolution loop. Every random choice comes from streams derived from (seed, generation, purpose) or
 * (seed, rollout id), never from completion order, so a run is the same at any concurrency and a killed run
 * resumed from its directory ends exactly where an uninterrupted one would.
 */
export async function runCoevolution(deps: ControllerDeps): Promise<RunOutcome> {
  const { config, recorder, clock } = deps;
  const runId = recorder.manifest.runId;
  const labels = { 'coevolve.run': runId, 'coevolve.owner-pid': String(process.pid) };
  const recordedHooks = new Map(
    (deps.history?.events ?? []).filter((e): e is Extract<RunEvent, { type: 'hook.finished' }> => e.type === 'hook.finished').sort((a, b) => a.generation - b.generation).map((e) => [e.generation, e]),
  );
  const seen = new Set((deps.history?.events ?? []).map(eventKey).filter((k): k is string => k !== undefined));
  const emitOnce = async (body: RunEventBody): Promise<void> => {
    const key = eventKey(body);
    if (key !== undefined) {
      if (seen.has(key)) return;
      seen.add(key);
    }
    await recorder.append(body);
  };

  let archive: Archive;
  let agent: AgentConfig;
  let startGeneration = 0;
  const finishedGenerations = (deps.history?.events ?? []).filter((e): e is Extract<RunEvent, { type: 'generation.finished' }> => e.type === 'generation.finished').map((e) => e.generation);
  const lastFinished = finishedGenerations.length ? Math.max(...finishedGenerations) : -1;
  const snap = lastFinished >= 0 ? deps.history?.snapshot(lastFinished) : undefined;
  if (deps.history && snap) {
    const h = deps.history;
    archive = Archive.restore(snap, (id) => h.environment(id), (id) => h.user(id));
    agent = h.agent(snap.agentId);
    startGeneration = lastFinished + 1;
    await recorder.append({ type: 'run.resumed', fromGeneration: startGeneration });
  } else {
    if (deps.history) await recorder.append({ type: 'run.resumed', fromGeneration: 0 });
    else await recorder.append({ type: 'run.started', runId });
    archive = new Archive();
    agent = agentConfigSchema.parse({
      apiVersion: specApiVersion,
      kind: 'Agent',
      id: 'agent-g0000',
      genes: config.agent.genes,
      ...(config.agent.systemPrompt ? { systemPrompt: config.agent.systemPrompt } : {}),
    });
    await recorder.writeAgent(agent);
    for (const e of deps.seeds.environments) {
      archive.addEnv(e);
      await recorder.writeEnvironment(e);
      await emitOnce({ type: 'spec.added', kind: 'environment', id: e.id, parent: e.lineage.parent, operator: e.lineage.operator, generation: 0 });
    }
    for (const u of deps.seeds.users) {
      archive.addUser(u);
      await recorder.writeUser(u);
      await emitOnce({ type: 'spec.added', kind: 'user', id: u.id, parent: u.lineage.parent, operator: u.lineage.operator, generation: 0 });
    }
    // Seed pairs: every environment with every user, in a fixed order; PLR picks among them.
    for (const e of deps.seeds.environments) for (const u of deps.seeds.users) archive.addPair(e.id, u.id, 'seed');
    archive.ledger.agents.push({ id: agent.id, parent: null });
    archive.ledger.frozen = await drawFrozenSets(archive, deps.seeds, recorder);
  }

  // A resumed run plays on with the model the trainer hook last handed back, exactly as if it had not stopped.
  for (const e of recordedHooks.values()) if (e.generation < startGeneration) switchAgentModel(e.result);

  const allMetrics: GenerationMetrics[] = [];
  for (let g = startGeneration; g < config.generations; g++) {
    if (deps.signal?.aborted) return stop(g);
    try {
      const finished = await playGeneration(g);
      allMetrics.push(finished);
    } catch (err) {
      // Cancellation surfaces as an error from whatever was running (a rollout, a validation, the hook): a clean stop.
      if (deps.signal?.aborted) return stop(g);
      throw err;
    }
  }
  await recorder.append({ type: 'run.finished', status: 'completed' });
  return { status: 'completed', generationsDone: config.generations, metrics: allMetrics };

  /** The hook between generations; its result switches the agent's model. A hook already recorded is not run again. */
  async function trainerHook(g: number, hook: NonNullable<RunConfig['trainerHook']>, runner: TrainerHookRunner): Promise<void> {
    const recorded = recordedHooks.get(g);
    if (recorded) return switchAgentModel(recorded.result);
    deps.onProgress?.({ type: 'phase', generation: g, phase: 'trainer hook' });
    const outputPath = await recorder.writeArtifact(`hooks/g${gen4(g)}.log`, '');
    const resultPath = outputPath.replace(/\.log$/, '.result.json');
    const r = await runner.run({
      command: hook.command,
      timeoutSec: hook.timeoutSec,
      outputPath,
      resultPath,
      env: { COEVOLVE_RUN_DIR: recorder.runDir, COEVOLVE_GENERATION: String(g), COEVOLVE_GENERATION_DIR: `${recorder.runDir}/rollouts/g${gen4(g)}`, COEVOLVE_HOOK_RESULT: resultPath },
    });
    // Switched before the event is written: a result the run cannot honour stops it, and a resume runs the hook again.
    switchAgentModel(r.result);
    await emitOnce({ type: 'hook.finished', generation: g, exitCode: r.exitCode, durationMs: r.durationMs, outputFile: outputPath, ...(r.result ? { result: r.result } : {}) });
  }

  function switchAgentModel(result: TrainerHookResult | undefined): void {
    const to = result?.agent;
    if (!to || (to.model === undefined && to.baseUrls === undefined)) return;
    if (!deps.switchAgentModel) throw new Error(`the trainer hook asked for agent model ${JSON.stringify(to)}, but the agent role is not an LLM role; give roles.agent kind: llm, or have the hook write no result`);
    deps.switchAgentModel(to);
  }

  async function playGeneration(g: number): Promise<GenerationMetrics> {
    const t0 = clock.now();
    const rng = createRng(`${config.seed}/g${g}`);
    const ctx: GenerationContext = { generation: g, config, archive, roles: deps.roles, backend: deps.backend, clock, rng, labels, runId, playedIds: [], ...(deps.signal ? { signal: deps.signal } : {}) };
    const pairs = planGeneration(archive, g, config, rng.fork('plan'));
    await emitOnce({ type: 'generation.started', generation: g, agentId: agent.id, pairs: pairs.map((p) => ({ pairId: p.pairId, envId: p.envId, userId: p.userId, source: p.lastPlayed >= 0 ? 'replay' : p.source })) });

    const plans = pairs.flatMap((p) => rolloutPlans(p, g, archive, agent, config, runId));
    const records = new Map<string, RolloutRecord>();
    for (const plan of plans) {
      const done = deps.history?.rollout(g, plan.rolloutId);
      if (done) records.set(plan.rolloutId, done);
    }
    deps.onProgress?.({ type: 'generation.started', generation: g, generations: config.generations, rollouts: plans.length, alreadyDone: records.size });

    const limit = pLimit(config.concurrency);
    let done = records.size;
    // Persistence is pipelined: the recorder's serial queue makes each rollout file durable before the event that
    // announces it, while the next rollout already plays. Everything is awaited before the generation is scored.
    const persisted: Promise<unknown>[] = [];
    const settled = await Promise.allSettled(
      plans.filter((p) => !records.has(p.rolloutId)).map((plan) =>
        limit(async () => {
          if (deps.signal?.aborted) throw new CancelledError();
          persisted.push(recorder.append({ type: 'rollout.started', generation: g, rolloutId: plan.rolloutId, pairId: plan.pairId }));
          const record = await playWithRetry(plan, rolloutDepsOf(ctx));
          const summary = summarizeRollout(record);
          persisted.push(recorder.writeRollout(record), recorder.append({ type: 'rollout.finished', summary }));
          records.set(plan.rolloutId, record);
          deps.onProgress?.({ type: 'rollout.finished', generation: g, done: ++done, total: plans.length, summary });
        }),
      ),
    );
    await Promise.all(persisted);
    const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected' && !(s.reason instanceof CancelledError) && !deps.signal?.aborted);
    if (failure) throw failure.reason;
    throwIfCancelled(deps.signal);

    // Score: in plan order, so metrics never depend on completion order.
    const ordered = plans.map((p) => records.get(p.rolloutId)!);
    const stats: PairStatsFull[] = pairs.map((p) => pairStats(p, ordered.filter((r) => r.pairId === p.pairId).map(summarizeRollout), config));
    const firstMeasure = { measured: 0, inBand: 0 };
    for (const s of stats) {
      archive.record(s.pairId, g, s);
      const pair = archive.pairs.get(s.pairId)!;
      archive.addOutcomes(pair, agent.id, s.successes, s.plays);
      if (pair.source === 'child' && pair.firstMeasured === undefined && s.plays > 0) {
        pair.firstMeasured = g;
        firstMeasure.measured++;
        if (inBand(s.successRate, config.band)) firstMeasure.inBand++;
      }
    }
    archive.fresh = archive.fresh.filter((id) => !pairs.some((p) => p.pairId === id));

    // The agent evolves before the population, so a promoted agent's first curriculum is made and screened for it:
    // children made for the agent it replaced would start one generation behind it. No agent is promoted after the
    // last generation: the final agent is the one the final archive was made and measured with.
    const playedBy = agent;
    const evolves = g < config.generations - 1;
    if (evolves) deps.onProgress?.({ type: 'phase', generation: g, phase: 'evolving agent' });
    const update = evolves ? await evolveAgent({ ...ctx, rng: rng.fork('agent') }, { current: agent, records: ordered }) : undefined;
    if (update) {
      if (update.promoted && update.candidate) {
        agent = update.candidate;
        await recorder.writeAgent(agent);
      }
      await emitOnce({ type: 'agent.updated', generation: g, fromId: update.fromId, toId: update.toId, change: update.change, promoted: update.promoted, ...(update.heldOut ? { heldOut: update.heldOut } : {}) });
    }
    throwIfCancelled(deps.signal);

    const model = buildFrontierModel(archive, agent.id, config.band);
    deps.onProgress?.({ type: 'phase', generation: g, phase: 'evolving population' });
    const population = await evolvePopulation({ ...ctx, rng: rng.fork('children') }, model, agent);
    const outcomes = population.outcomes;
    for (const o of outcomes) {
      // A child's spec file is written before the event that announces it.
      if (o.accepted && o.kind === 'environment') await recorder.writeEnvironment(archive.envs.get(o.id)!);
      if (o.accepted && o.kind === 'user') await recorder.writeUser(archive.users.get(o.id)!);
      await emitOnce(childEvent(o, g));
    }
    archive.fresh.push(...population.fresh.map((p) => p.pairId));

    // Select after the children, on a model refitted with their screening plays, so admitted children can take the
    // places of pairs confidently out of band: retire what is too easy, quarantine what is too hard (never below
    // minArchive active pairs), bring back quarantined pairs a new agent may reach.
    const selection = buildFrontierModel(archive, agent.id, config.band);
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

    const test = await testSetMetrics(ctx, agent, update?.promoted ? playedBy : null);
    throwIfCancelled(deps.signal);

    if (config.trainerHook && deps.hook) await trainerHook(g, config.trainerHook, deps.hook);

    const rejections: Record<string, number> = {};
    for (const o of outcomes) if (!o.accepted && o.reason) rejections[o.reason] = (rejections[o.reason] ?? 0) + 1;
    const accepted = outcomes.filter((o) => o.accepted).length;
    const base = generationMetrics({
      index: g,
      config,
      records: ordered,
      pairs: stats,
      envs: unique(pairs.map((p) => archive.envs.get(p.envId)!)),
      users: unique(pairs.map((p) => archive.users.get(p.userId)!)),
      archiveEnvs: archive.activeEnvs(),
      children: { proposed: outcomes.length, accepted, inBandChildren: firstMeasure.inBand, rejections, added: accepted, retired },
      agent: { id: agent.id, changed: update?.promoted ?? false, ...(update ? { change: update.change } : {}), genes: agent.genes },
      durationMs: clock.now() - t0,
    });
    // Version-2 figures, from a model refitted with the children's screening plays, for the agent that played.
    const measured = frontierFields(archive, buildFrontierModel(archive, playedBy.id, config.band), config, unique(pairs.map((p) => archive.envs.get(p.envId)!)));
    const metrics: GenerationMetrics = {
      ...base,
      metricsVersion: generationMetricsVersion,
      frontierYield: {
        proposed: outcomes.length, accepted, inBand: firstMeasure.inBand, measured: firstMeasure.measured,
        share: firstMeasure.measured ? firstMeasure.inBand / firstMeasure.measured : 0,
        admittedShare: outcomes.length ? accepted / outcomes.length : 0,
        screenedOut: outcomes.filter((o) => o.reason === 'screened_out').length,
        aim: aimCheck(population.aimed),
      },
      ...measured,
      heldOut: { test, promotion: update?.promotion ?? null },
      userEffect: { users: population.userEffects, meanVsParent: meanUserEffect(archive) },
      realism: { bounds: realismIndicatorBounds, users: population.realism, allWithin: population.realism.every((r) => r.violations.length === 0 || !population.userEffects.find((u) => u.userId === r.userId)?.admitted) },
    };
    await recorder.writeArtifact(`ids/g${gen4(g)}.json`, JSON.stringify(ctx.playedIds ?? []));
    await recorder.writeGenerationMetrics(g, metrics);
    await recorder.writeArtifact(snapshotPath(g), JSON.stringify(archive.snapshot(g, agent.id)));
    await emitOnce({ type: 'generation.finished', generation: g });
    deps.onProgress?.({ type: 'generation.finished', generation: g, metrics });
    return metrics;
  }

  async function stop(g: number): Promise<RunOutcome> {
    await recorder.append({ type: 'run.finished', status: 'stopped', message: `stopped during generation ${g}; resume to continue` });
    return { status: 'stopped', generationsDone: g, metrics: allMetrics };
  }
}

const maxHostRetries = 3;

/** A rollout whose sandbox host was lost is played again (the pool places it on another host); same id, same result. */
async function playWithRetry(plan: RolloutPlan, deps: RolloutDeps): Promise<RolloutRecord> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await playRollout(plan, deps);
    } catch (err) {
      if (!isRetryable(err) || attempt >= maxHostRetries) throw err;
    }
  }
}

function rolloutPlans(pair: PairEntry, g: number, archive: Archive, agent: AgentConfig, config: RunConfig, runId: string): RolloutPlan[] {
  const env = archive.envs.get(pair.envId)!;
  const user = archive.users.get(pair.userId)!;
  const base = { runId, runSeed: config.seed, generation: g, pairId: pair.pairId, env, user, agent };
  const id = (kind: 't' | 'h', t: number): string => `g${gen4(g)}-${pair.pairId}-${kind}${t}`;
  const plans: RolloutPlan[] = [];
  for (let t = 0; t < config.k; t++) plans.push({ ...base, rolloutId: id('t', t), trial: t, hint: false });
  if (env.hint) for (let t = 0; t < config.hintPlays; t++) plans.push({ ...base, rolloutId: id('h', t), trial: t, hint: true });
  return plans;
}

function unique<T extends { id: string }>(xs: T[]): T[] {
  const m = new Map<string, T>();
  for (const x of xs) if (x) m.set(x.id, x);
  return [...m.values()];
}

/** Identity of an event for resume (re-deriving a generation must not append the same fact twice); undefined for events that are never deduplicated. */
function eventKey(e: RunEventBody): string | undefined {
  switch (e.type) {
    case 'spec.added':
    case 'spec.retired':
      return `${e.type}|${e.kind}|${e.id}`;
    case 'child.rejected':
      return `${e.type}|${e.generation}|${e.id}`;
    case 'pair.added':
      return `${e.type}|${e.pairId}`;
    case 'pair.rejected':
      return `${e.type}|${e.generation}|${e.envId}|${e.userId}|${e.parent}|${e.operator}`;
    case 'agent.updated':
    case 'hook.finished':
    case 'generation.started':
    case 'generation.finished':
      return `${e.type}|${e.generation}`;
    default:
      return undefined;
  }
}
