import { bandCentre, inBand } from '../metrics/band.js';
import type { Rng } from '../ports/rng.js';
import { zeroUsage } from '../ports/model.js';
import type { DesignMove, PairStats, Proposal } from '../roles/ports.js';
import type { ChildValidation } from '../ports/runStore.js';
import type { AimedChild } from '../metrics/aimCheck.js';
import type { UserEffectEntry } from '../metrics/metricsSchema.js';
import { logistic, logit } from '../metrics/distributions.js';
import { pairPosterior, screeningVerdict, screensOut } from '../metrics/pairEvidence.js';
import type { realismIndicators } from '../metrics/realismIndicators.js';
import { verdictOf } from '../rollout/verdict.js';
import type { AgentConfig } from '../spec/agent.js';
import { environmentSpecSchema, type EnvironmentSpec } from '../spec/environment.js';
import type { UserProfile } from '../spec/user.js';
import { frozenEnvIds, moveKey, type Archive, type PairEntry } from './archive.js';
import { environmentFingerprint } from './fingerprint.js';
import { operatorMoves, type FrontierModel } from './frontierModel.js';
import { isMeasured } from './frontierSelection.js';
import type { GenerationContext } from './generationContext.js';
import { countOutcomes, inPlanOrder, playMeasurements, type MeasurementPlay } from './measurementPlays.js';
import { availableMoves, makeEnvironmentChild, makeUserChild } from './moves.js';
import { planChildren, type ChildPlan, type SteeringInput } from './steering.js';
import { continueProbation, startProbation, userSlots, type ProbationEntry, type UserVerdict } from './userAdmission.js';
import { fallbackEnvironment, pairAdmittedUser } from './userPairing.js';
import { validateEnvironment } from './validateEnvironment.js';

export interface ChildOutcome {
  kind: 'environment' | 'user' | 'pair';
  id: string;
  parent: string;
  operator: string;
  accepted: boolean;
  /** Short machine-readable reason class ("oracle_failed", "screened_out", ...) and the human detail. */
  reason?: string;
  detail?: string;
  /** The model's predicted success of the child for the current agent. */
  predicted: number;
  /** An environment child's validation (oracle, empty agent) and screening plays, as far as it got. */
  validation?: ChildValidation;
  /** A new pairing: what it pairs, the move whose result the archive already held (if a move made it), its screening, and its pair once admitted. */
  pairing?: { envId: string; userId: string; madeBy?: { parent: string; operator: string }; screening?: { successes: number; trials: number }; pairId?: string };
}

/** Children are proposed and validated within a generation's context. */
export type ChildContext = GenerationContext;

/** Screening rules (ARCHITECTURE.md, "Steering"); user children's plays are userAdmission.ts's `probationRules`. */
export const childRules = { screeningPlays: 4 } as const;

export interface PopulationOutcome {
  outcomes: ChildOutcome[];
  /** Every screened child of this generation's plan (environment children and new pairings): its prediction and screening. */
  aimed: AimedChild[];
  fresh: PairEntry[];
  userEffects: UserEffectEntry[];
  realism: { userId: string; indicators: ReturnType<typeof realismIndicators>; violations: string[] }[];
}

type Candidate = (
  | { outcome: ChildOutcome; kind: 'environment'; spec?: EnvironmentSpec; userId: string; screen?: { successes: number; trials: number } }
  | { outcome: ChildOutcome; kind: 'user'; user?: UserProfile; envId: string; screen?: { successes: number; trials: number }; effect?: UserEffectEntry; realism?: PopulationOutcome['realism'][number]; pending?: ProbationEntry }
  | { outcome: ChildOutcome; kind: 'pair'; envId: string; userId: string; screen?: { successes: number; trials: number }; madeBy?: { parent: string; operator: string } }
) & { cells?: CellPlays[] };

/**
 * Plans children from the fitted model (steering.ts), makes and validates them, screens each on a few plays with the
 * current agent, and admits in plan order (so ids and duplicate checks never depend on which validation finished
 * first). Every refusal comes back with its reason.
 */
export async function evolvePopulation(ctx: ChildContext, model: FrontierModel, agent: AgentConfig): Promise<PopulationOutcome> {
  const count = childCount(ctx.archive, model, ctx.config);
  // User children on probation play their next look first; a decided one frees its slot for a new user child.
  const probation = await continueProbation(ctx, agent);
  const plans = planChildren(steeringInput(ctx, model, agent, count));
  const fingerprints = new Set([...ctx.archive.envs.values()].map(environmentFingerprint));
  // Made and screened concurrently; their plays' ids are logged in plan order (artifacts/ids), never finishing order.
  const fresh = await inPlanOrder(ctx, Math.max(1, Math.ceil(ctx.config.concurrency / 2)), plans.map((plan, i) => (own: ChildContext) => childOf(own, model, plan, agent, ctx.rng.fork(`child-${i}`), fingerprints)));
  // Children from earlier generations' probation come first; they have no plan this generation.
  const decided = await inPlanOrder(ctx, probation.length || 1, probation.map((v) => (own: ChildContext) => userCandidate(own, model, agent, v)));
  const candidates = [...decided, ...fresh];
  const planOf = (i: number): ChildPlan | undefined => (i < probation.length ? undefined : plans[i - probation.length]);

  const out: PopulationOutcome = { outcomes: [], aimed: [], fresh: [], userEffects: [], realism: [] };
  for (const [i, c] of candidates.entries()) settleCandidate(ctx, out, c, planOf(i), agent, fingerprints);
  return out;
}

/** What the steering needs of this generation: the archive, the fitted model, the roles' moves and the slots. */
function steeringInput(ctx: ChildContext, model: FrontierModel, agent: AgentConfig, count: number): SteeringInput {
  const baseCount = ctx.config.population.childrenPerGeneration;
  // Generated held-out environments are never parents nor paired; with `source: seeds` the seeds are the archive.
  const frozen = frozenEnvIds(ctx.archive.ledger.frozen);
  return {
    pairs: [...ctx.archive.pairs.values()],
    envs: ctx.archive.envs,
    users: ctx.archive.users,
    excludedEnvs: frozen,
    fit: model.fit,
    agentId: agent.id,
    inBand: (p) => {
      const post = model.posterior.get(p.pairId);
      return post !== undefined && post.mean >= ctx.config.band.low && post.mean <= ctx.config.band.high;
    },
    userRoot: model.userRoot,
    envMoves: (e) => availableMoves(ctx.roles.designer, e),
    userMoves: (u) => availableMoves(ctx.roles.userEvolver, u, agent),
    effectOf: model.moveEffect,
    // Only a role that lists its moves makes the same child from the same move again; a role that proposes by
    // direction (an LLM designer) makes a new child every time, so nothing it tried is ruled out.
    tried: (kind, parentId, operator) => {
      const listsMoves = kind === 'environment' ? ctx.roles.designer.moves : ctx.roles.userEvolver.moves;
      return listsMoves !== undefined && ctx.archive.ledger.made?.[moveKey(kind, parentId, operator)] !== undefined;
    },
    count,
    // User children are measured on paired plays, the run's dearest: their slots follow the configured count.
    maxUserChildren: Math.min(userSlots(ctx.archive.ledger), Math.max(1, Math.floor(baseCount / 4))),
    maxRepairs: Math.floor(count / 2),
    centre: bandCentre(ctx.config.band),
  };
}

/**
 * One candidate, in plan order: its records (user effects, aim, what its move made, its measurements), then
 * probation, refusal or its admitted pair.
 */
function settleCandidate(ctx: ChildContext, out: PopulationOutcome, c: Candidate, plan: ChildPlan | undefined, agent: AgentConfig, fingerprints: Set<string>): void {
  recordCandidate(ctx, out, c, plan, agent);
  if (c.kind === 'user' && c.pending) {
    // Undecided: no outcome this generation; a new child joins the probation list in plan order.
    const list = (ctx.archive.ledger.userProbation ??= []);
    if (!list.includes(c.pending)) list.push(c.pending);
    return;
  }
  if (!c.outcome.accepted) {
    out.outcomes.push(c.outcome);
    return;
  }
  const admitted = admitPair(ctx.archive, c.kind === 'environment' ? { kind: 'environment', spec: c.spec!, userId: c.userId } : c.kind === 'user' ? { kind: 'user', user: c.user!, envId: c.envId, ...(c.effect ? { effect: c.effect } : {}) } : c, fingerprints);
  if ('refused' in admitted) {
    out.outcomes.push({ ...c.outcome, accepted: false, reason: 'duplicate', detail: admitted.refused });
    return;
  }
  const pair = admitted.pair;
  pair.origin = c.outcome.operator;
  // The screening plays decided admission, so they are not the pair's evidence (they would carry the selection's
  // optimism into its band membership); they teach the fit as cells (keepMeasurements) and are kept for the record.
  if (c.screen) pair.screening = { agentId: agent.id, ...c.screen };
  out.fresh.push(pair);
  out.outcomes.push(c.kind === 'pair' ? { ...c.outcome, pairing: { ...c.outcome.pairing!, pairId: pair.pairId } } : c.outcome);
}

/** What every candidate leaves whatever its verdict: its user effect and realism, its aim, what its move made, its cells. */
function recordCandidate(ctx: ChildContext, out: PopulationOutcome, c: Candidate, plan: ChildPlan | undefined, agent: AgentConfig): void {
  if (c.kind === 'user') {
    const decision = c.outcome.accepted ? 'admitted' : c.pending ? 'probation' : 'refused';
    if (c.effect) out.userEffects.push({ ...c.effect, admitted: c.outcome.accepted, decision });
    if (c.realism) out.realism.push(c.realism);
  }
  if (plan && c.kind !== 'user' && c.screen) out.aimed.push({ predicted: plan.predicted, ...c.screen });
  if (plan && c.kind !== 'pair') recordMade(ctx.archive.ledger, plan, c.outcome);
  else if (plan && c.kind === 'pair' && c.madeBy) recordMade(ctx.archive.ledger, plan, { ...c.outcome, kind: 'environment', id: c.envId, ...c.madeBy });
  else if (c.kind === 'user') (ctx.archive.ledger.made ??= {})[moveKey('user', c.outcome.parent, c.outcome.operator)] = { id: c.outcome.id, verdict: c.outcome.accepted ? 'admitted' : (c.outcome.reason ?? 'refused') };
  keepMeasurements(ctx, c, agent.id);
}

/**
 * Children planned this generation: `childrenPerGeneration`, or as many as the active measured pairs (the ones the
 * cap can replace: played, or screened on admission) the fitted model places outside the band for the current agent,
 * up to `maxChildrenPerGeneration`. A promoted agent finds most of the archive too easy at once; with a fixed count
 * the admitted children replace a few pairs a generation and the archive follows the agent generations late. Counting
 * played pairs only, children never replayed since their screening were left out though the cap retires them: the
 * level-1.5 demo ended with about 9 pairs a seed predicted outside the band (44 % of them in band by eval), 56.2 % in
 * band against 61.0 % counted as the cap counts (bench:efficacy, six seeds; another draw 58.2 % and 59.2 %).
 */
export function childCount(archive: Archive, model: FrontierModel, config: ChildContext['config']): number {
  const base = config.population.childrenPerGeneration;
  const max = Math.max(base, config.population.maxChildrenPerGeneration ?? base);
  if (max === base) return base;
  const out = archive.activePairs().filter((p) => isMeasured(p) && !inBand(model.fit.predict(model.agentId, p.envId, p.userId), config.band)).length;
  return Math.min(max, Math.max(base, out));
}

/** What admission needs of a candidate to make its pair (exported for its unit test). */
export type AdmissionCandidate =
  | { kind: 'environment'; spec: EnvironmentSpec; userId: string }
  | { kind: 'user'; user: UserProfile; envId: string; effect?: { vsParent: { mean: number } } }
  | { kind: 'pair'; envId: string; userId: string };

/**
 * Makes an accepted candidate's pair, or says why it is a duplicate. Every kind checks that the pairing is new: plans
 * are made and screened before any is admitted, so two plans of one generation can end in the same pairing (a new
 * pairing planned as a repair and a move that remade that environment for the same user); `addPair` returns the
 * existing pair for a known combination, and the pairing was admitted twice (one pair, two outcomes, two fresh entries).
 */
export function admitPair(archive: Archive, c: AdmissionCandidate, fingerprints: Set<string>): { pair: PairEntry } | { refused: string } {
  const paired = (envId: string, userId: string): boolean => [...archive.pairs.values()].some((p) => p.envId === envId && p.userId === userId);
  if (c.kind === 'environment') {
    // A sibling admitted before it made the same task: this child is that task with this pair's user.
    const sibling = knownEnvironment(archive, c.spec, fingerprints);
    if (sibling && paired(sibling.id, c.userId)) return { refused: 'same task and user as a sibling admitted before it' };
    if (!sibling) {
      fingerprints.add(environmentFingerprint(c.spec));
      archive.addEnv(c.spec);
    }
    return { pair: archive.addPair(sibling?.id ?? c.spec.id, c.userId, 'child') };
  }
  if (c.kind === 'user') {
    if (archive.users.has(c.user.id)) return { refused: `id ${c.user.id} already in the archive` };
    archive.addUser(c.user);
    if (c.effect) archive.ledger.userEffects.push({ userId: c.user.id, vsParent: c.effect.vsParent.mean });
    return { pair: archive.addPair(c.envId, c.user.id, 'child') };
  }
  if (paired(c.envId, c.userId)) return { refused: `${c.envId} is already paired with ${c.userId} (admitted earlier this generation)` };
  return { pair: archive.addPair(c.envId, c.userId, 'child') };
}

/**
 * Records a made child under the move as it was planned ("a+a+a") and as it was made ("a+a" when the third step was
 * not available): the planner asks by the planned operator, so a child recorded only as made was planned again every
 * generation and came back as the same refused id (the lineage listed it once per generation).
 */
export function recordMade(ledger: { made?: Record<string, { id: string; verdict: string }> }, plan: ChildPlan, outcome: ChildOutcome): void {
  if (plan.kind === 'repair' || outcome.kind === 'pair') return;
  const entry = { id: outcome.id, verdict: outcome.accepted ? 'admitted' : (outcome.reason ?? 'refused') };
  const made = (ledger.made ??= {});
  const planned = plan.kind === 'environment' ? Array.from({ length: plan.times }, () => plan.move.id).join('+') : plan.move.id;
  made[moveKey(outcome.kind, outcome.parent, planned)] = entry;
  made[moveKey(outcome.kind, outcome.parent, outcome.operator)] = entry;
}

/** Plays of a combination that feed only the model's cells (not the admitted pair's own evidence). */
interface CellPlays { envId: string; userId: string; successes: number; trials: number }

/**
 * Every measurement play teaches the fit: a refused child's plays go to the model's cells and the child becomes a probe
 * (a parameter of the fit with its parent and move, outside the archive), so the fit learns what its move does.
 */
function keepMeasurements(ctx: ChildContext, c: Candidate, agentId: string): void {
  for (const p of c.cells ?? []) ctx.archive.addCell(agentId, p.envId, p.userId, p.successes, p.trials);
  if (c.outcome.accepted || c.kind === 'pair' || !(c.cells ?? []).some((p) => p.trials > 0)) return;
  const id = c.kind === 'environment' ? c.spec?.id : c.user?.id;
  const probes = (ctx.archive.ledger.probes ??= []);
  // A child on probation plays a look every generation: it is one probe.
  if (id && !probes.some((p) => p.kind === c.kind && p.id === id)) probes.push({ kind: c.kind, id, parent: c.outcome.parent, operator: c.outcome.operator });
}

async function childOf(ctx: ChildContext, model: FrontierModel, plan: ChildPlan, agent: AgentConfig, rng: Rng, fingerprints: ReadonlySet<string>): Promise<Candidate> {
  if (plan.kind === 'repair') return pairingOf(ctx, plan.envId, plan.userId, plan.predicted, agent);
  const env = ctx.archive.envs.get(plan.parent.envId)!;
  const user = ctx.archive.users.get(plan.parent.userId)!;
  const own = plan.parent.plays?.[agent.id];
  const stats = { successRate: own && own.trials ? own.successes / own.trials : plan.predicted, regret: plan.parent.lastStats?.regret ?? 0, plays: own?.trials ?? 0, meanReward: plan.parent.lastStats?.meanReward ?? 0 };
  const signal = ctx.signal ? { signal: ctx.signal } : {};
  if (plan.kind === 'environment') {
    const proposal = await guarded(ctx, 'designer', () => stepsOf(ctx, env, plan.move, plan.times, stats, rng));
    const base = { kind: 'environment' as const, parent: env.id, operator: proposal.operator, predicted: plan.predicted };
    if (!proposal.ok) return { kind: 'environment', userId: user.id, outcome: { ...base, id: `${env.id}~${proposal.operator}`, accepted: false, reason: 'designer_failed', detail: proposal.reason } };
    // The move made a task the archive already holds (the same knob change from another of its pairs): pairing that
    // environment with this pair's user is the child, validated already, so it costs only its screening plays.
    const known = knownEnvironment(ctx.archive, proposal.child, fingerprints);
    if (known) return pairingOf(ctx, known.id, user.id, plan.predicted, agent, { parent: env.id, operator: proposal.operator });
    const verdict = await admitEnvironment(ctx, proposal.child, fingerprints);
    const validation = verdict.validation;
    const outcome: ChildOutcome = { ...base, id: proposal.child.id, accepted: verdict.ok, ...(verdict.ok ? {} : { reason: verdict.reason, detail: verdict.detail }), ...(validation ? { validation } : {}) };
    if (!verdict.ok) return { kind: 'environment', userId: user.id, outcome };
    const screen = await screenPair(ctx, user, verdict.spec, agent, verdict.spec.id);
    const judged = screened(ctx, { ...outcome, validation: { ...verdict.validation, screening: screen } }, screen, plan.predicted);
    return { kind: 'environment', userId: user.id, spec: verdict.spec, outcome: judged, screen, cells: [{ envId: verdict.spec.id, userId: user.id, ...screen }] };
  }
  const proposal = await guarded(ctx, 'user evolver', () => makeUserChild(ctx.roles.userEvolver, { parent: user, move: plan.move, stats, generation: ctx.generation + 1, rng, ...signal }));
  const base = { kind: 'user' as const, parent: user.id, operator: proposal.operator, predicted: plan.predicted };
  if (!proposal.ok) return { kind: 'user', envId: env.id, outcome: { ...base, id: `${user.id}~${proposal.operator}`, accepted: false, reason: 'evolver_failed', detail: proposal.reason } };
  const v = await startProbation(ctx, model, proposal.child, user, env, agent, base);
  if (v.status === 'invalid') return { kind: 'user', envId: env.id, outcome: { ...base, id: v.id, accepted: false, reason: v.reason, detail: v.detail } };
  return userCandidate(ctx, model, agent, v);
}

/** A new pairing of an archived environment with an archived user, screened like every child. */
async function pairingOf(ctx: ChildContext, envId: string, userId: string, predicted: number, agent: AgentConfig, madeBy?: { parent: string; operator: string }): Promise<Candidate> {
  const frozen = frozenEnvIds(ctx.archive.ledger.frozen).has(envId);
  const taken = frozen || [...ctx.archive.pairs.values()].some((p) => p.envId === envId && p.userId === userId);
  const outcome: ChildOutcome = { kind: 'pair', id: `${envId}+${userId}`, parent: envId, operator: 'repair', accepted: true, predicted, pairing: { envId, userId, ...(madeBy ? { madeBy } : {}) } };
  if (taken) return { kind: 'pair', envId, userId, madeBy, outcome: { ...outcome, accepted: false, reason: 'duplicate', detail: frozen ? `the move made ${envId}, a held-out environment` : `${envId} is already paired with ${userId}` } };
  const screen = await screenPair(ctx, ctx.archive.users.get(userId)!, ctx.archive.envs.get(envId)!, agent, envId);
  const verdict = screened(ctx, { ...outcome, pairing: { ...outcome.pairing!, screening: screen } }, screen, predicted);
  return { kind: 'pair', envId, userId, madeBy, outcome: verdict, screen, cells: [{ envId, userId, ...screen }] };
}

/** The archived environment a proposed child is (same id or same content), if any. */
function knownEnvironment(archive: Archive, child: EnvironmentSpec, fingerprints: ReadonlySet<string>): EnvironmentSpec | undefined {
  const same = archive.envs.get(child.id);
  if (same) return same;
  const fp = environmentFingerprint(child);
  if (!fingerprints.has(fp)) return undefined;
  return [...archive.envs.values()].find((e) => environmentFingerprint(e) === fp);
}

/**
 * `times` steps of one move, each a single designer edit of the previous step's result; the child keeps the
 * original parent and records every step in its operator ("easier:feedback+easier:feedback").
 */
async function stepsOf(ctx: ChildContext, parent: EnvironmentSpec, move: DesignMove, times: number, stats: PairStats, rng: Rng): Promise<Proposal<EnvironmentSpec>> {
  let current = parent;
  const ops: string[] = [];
  let last: Proposal<EnvironmentSpec> | undefined;
  for (let i = 0; i < times; i++) {
    const next = i === 0 ? move : availableMoves(ctx.roles.designer, current).find((m) => m.id === move.id);
    if (!next) break;
    const p = await makeEnvironmentChild(ctx.roles.designer, { parent: current, move: next, stats, generation: ctx.generation + 1, rng: rng.fork(`step-${i}`), ...(ctx.signal ? { signal: ctx.signal } : {}) });
    if (!p.ok) {
      if (i === 0) return p;
      break;
    }
    last = p;
    current = p.child;
    ops.push(p.operator);
  }
  if (!last || !last.ok) return { ok: false, operator: move.id, reason: 'no step could be made', usage: zeroUsage() };
  const operator = ops.join('+');
  return { ...last, operator, child: { ...last.child, lineage: { parent: parent.id, operator, generation: ctx.generation + 1 } } };
}

/** A few plays of the child pair with the current agent; refused when they make it confidently out of band. */
async function screenPair(ctx: ChildContext, user: UserProfile, env: EnvironmentSpec, agent: AgentConfig, tag: string): Promise<{ successes: number; trials: number }> {
  const plays: MeasurementPlay[] = Array.from({ length: childRules.screeningPlays }, (_, t) => ({ rolloutId: `g${ctx.generation}-screen-${tag}-${user.id}-t${t}`, env, user, agent, trial: t }));
  return countOutcomes((await playMeasurements(ctx, plays, 'screening')).map(verdictOf));
}

function screened(ctx: ChildContext, outcome: ChildOutcome, screen: { successes: number; trials: number }, predicted: number): ChildOutcome {
  const post = pairPosterior([{ age: 0, ...screen }], predicted, ctx.config.band);
  if (screensOut(post)) return { ...outcome, accepted: false, reason: 'screened_out', detail: screeningVerdict(screen, predicted, post) };
  return outcome;
}

/** A role that fails (a model that stays down past its retries) costs one child, never the run. */
async function guarded<T>(ctx: ChildContext, role: string, propose: () => Promise<Proposal<T>>): Promise<Proposal<T>> {
  try {
    return await propose();
  } catch (err) {
    if (ctx.signal?.aborted) throw err;
    return { ok: false, operator: `${role}:error`, reason: `${role} failed: ${err instanceof Error ? err.message : String(err)}`, usage: zeroUsage() };
  }
}

type Verdict<T> = ({ ok: true } & T) | { ok: false; reason: string; detail: string; validation?: ChildValidation };

/** A child enters only if the spec is valid, new, its oracle passes and an empty agent fails. */
async function admitEnvironment(ctx: ChildContext, candidate: EnvironmentSpec, fingerprints: ReadonlySet<string>): Promise<Verdict<{ spec: EnvironmentSpec; validation: ChildValidation }>> {
  const parsed = environmentSpecSchema.safeParse(candidate);
  if (!parsed.success) return { ok: false, reason: 'invalid_spec', detail: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') };
  const spec = parsed.data;
  if (ctx.archive.envs.has(spec.id)) return { ok: false, reason: 'duplicate', detail: `id ${spec.id} already in the archive` };
  if (fingerprints.has(environmentFingerprint(spec))) return { ok: false, reason: 'duplicate', detail: 'same task content as an archived environment' };
  const v = await validateEnvironment(spec, ctx.backend, { labels: ctx.labels, ...(ctx.signal ? { signal: ctx.signal } : {}) });
  const validation: ChildValidation = { oracleReward: 'error' in v.oracle ? null : v.oracle.verifier.reward, emptyReward: 'error' in v.empty ? null : v.empty.verifier.reward };
  if (!v.oraclePassed) return { ok: false, reason: 'oracle_failed', detail: v.details, validation };
  if (!v.emptyFailed) return { ok: false, reason: 'empty_agent_passed', detail: v.details, validation };
  return { ok: true, spec, validation };
}

/**
 * A user child's verdict after its look, as a candidate of this generation. An admitted one is screened on its plays
 * of the deciding look and paired where they put it in band: the parent pair's environment first, else another look
 * environment, else one more environment predicted near the centre on 4 screening plays (userPairing.ts).
 */
async function userCandidate(ctx: ChildContext, model: FrontierModel, agent: AgentConfig, v: UserVerdict): Promise<Candidate> {
  const base = { kind: 'user' as const, id: v.user.id, parent: v.parentId, operator: v.operator, predicted: v.predicted };
  const common = { kind: 'user' as const, envId: v.envId, user: v.user, ...(v.effect ? { effect: v.effect } : {}), ...(v.realism ? { realism: v.realism } : {}) };
  if (v.status !== 'admitted') {
    return { ...common, ...(v.entry ? { pending: v.entry } : {}), outcome: { ...base, accepted: false, reason: v.reason ?? 'probation', ...(v.detail ? { detail: v.detail } : {}) }, cells: v.cells };
  }
  const active = new Set(ctx.archive.activeEnvs().map((e) => e.id));
  const looks = v.cells
    .filter((c) => c.userId === v.user.id && (c.envId === v.envId || active.has(c.envId)))
    .sort((a, b) => Number(b.envId === v.envId) - Number(a.envId === v.envId))
    .map((c) => ({ envId: c.envId, successes: c.successes, trials: c.trials, predicted: c.envId === v.envId ? v.predicted : childPrediction(model, agent.id, v, c.envId) }));
  // Every measurement play is a cell of the fit; none becomes the admitted pair's own evidence (they decided admission).
  const pairing = pairAdmittedUser(looks, ctx.config.band);
  if (!('refused' in pairing)) {
    const where = pairing.moved ? `; paired with ${pairing.envId}: with the parent pair's environment ${v.envId} it screened out` : '';
    return { ...common, envId: pairing.envId, outcome: { ...base, predicted: pairing.predicted, accepted: true, ...(v.detail || where ? { detail: `${v.detail ?? 'admitted'}${where}` } : {}) }, screen: pairing.screen, cells: v.cells };
  }
  const frozen = frozenEnvIds(ctx.archive.ledger.frozen);
  const options = ctx.archive.activeEnvs().filter((e) => !frozen.has(e.id) && !looks.some((l) => l.envId === e.id)).map((e) => ({ envId: e.id, predicted: childPrediction(model, agent.id, v, e.id) }));
  const alt = fallbackEnvironment(options, bandCentre(ctx.config.band));
  const refusedDetail = `harder than its parent (${v.detail ?? ''}), but no pair with it screens in band: ${pairing.refused}`;
  if (!alt) return { ...common, outcome: { ...base, accepted: false, reason: 'screened_out', detail: refusedDetail }, cells: v.cells };
  const screen = await screenPair(ctx, v.user, ctx.archive.envs.get(alt.envId)!, agent, alt.envId);
  const cells = [...v.cells, { envId: alt.envId, userId: v.user.id, ...screen }];
  const judged = screened(ctx, { ...base, predicted: alt.predicted, accepted: true, detail: `${v.detail ?? ''}; paired with ${alt.envId}: every look environment screened it out` }, screen, alt.predicted);
  if (!judged.accepted) return { ...common, outcome: { ...judged, detail: `${refusedDetail}; ${alt.envId}: ${judged.detail ?? ''}` }, cells };
  return { ...common, envId: alt.envId, outcome: judged, screen, cells };
}

/** The model's success for a user child on an environment: the child's own fit if it has one, else its parent's shifted by its moves. */
function childPrediction(model: FrontierModel, agentId: string, v: UserVerdict, envId: string): number {
  if (model.fit.users.has(v.user.id)) return model.fit.predict(agentId, envId, v.user.id);
  const shift = operatorMoves('user', undefined, v.operator).reduce((t, m) => t + m.steps * model.moveEffect('user', undefined, m.id.slice('user/'.length)), 0);
  return logistic(logit(Math.min(0.99, Math.max(0.01, model.fit.predict(agentId, envId, v.parentId)))) - shift);
}

export { cooperativeReferenceUser, referenceAgent } from './userAdmission.js';
