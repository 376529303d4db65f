import { logistic } from './distributions.js';

/**
 * Measured difficulty: a Rasch model P(success) = sigmoid(θ_agent − b_env − u_user) fitted by penalised maximum
 * likelihood, so environments, users and agents sit on one logit scale. Deterministic: a fixed number of sweeps of
 * one-dimensional Newton steps in sorted order. The zero point is a translation applied after the fit (it leaves
 * every prediction unchanged): the mean of the anchor environments and the mean of the anchor users are 0.
 *
 * A child made from its parent by named moves has the prior b_child ~ N(b_parent + Σ steps · δ_move, priorSd²): the
 * move effects δ are parameters of the fit shared by every child made with that move, so they are learned from all
 * of those children together (and the parent learns from its children). Estimating a move's effect as the mean
 * difference of shrunk child and parent estimates would be biased toward 0 by the shrinkage; this is not.
 */

export type RaschKind = 'agent' | 'environment' | 'user';

export interface RaschParameter {
  kind: RaschKind;
  id: string;
  /** The parent (same kind) whose estimate is this one's prior mean; otherwise the prior mean is 0. */
  parent?: string | null;
  /** Prior standard deviation. */
  priorSd: number;
  /** Part of the zero point (seed environments and seed users). */
  anchor?: boolean;
  /** The moves that made it from its parent, each with its number of steps; their effects add to the prior mean. */
  moves?: { id: string; steps: number }[];
}

/** Prior of a move's effect on the difficulty of what it is applied to (+ harder), on the logit scale. */
export interface RaschMovePrior {
  id: string;
  mean: number;
  sd: number;
}

export interface RaschCell {
  agent: string;
  env: string;
  user: string;
  successes: number;
  trials: number;
}

export interface RaschEstimate {
  kind: RaschKind;
  id: string;
  value: number;
  /** From the diagonal of the penalised Hessian. */
  se: number;
  trials: number;
}

export interface RaschFit {
  agents: Map<string, RaschEstimate>;
  environments: Map<string, RaschEstimate>;
  users: Map<string, RaschEstimate>;
  /** Effect of one step of each move (kind = the kind of what it moves); `trials` = plays of the children made with it. */
  moves: Map<string, RaschEstimate>;
  trials: number;
  /** P(success) for a combination; parameters the fit never saw count as 0 (the scale's centre). */
  predict(agent: string, env: string, user: string): number;
  /** The linear predictor's standard error for a combination (independent parameters). */
  predictionSe(agent: string, env: string, user: string): number;
}

const sweeps = 60;
const maxStep = 1.5;

export function fitRasch(parameters: RaschParameter[], cells: RaschCell[], movePriors: RaschMovePrior[] = []): RaschFit {
  const s = raschState(sortedParameters(parameters), cells, movePriors);
  for (let sweep = 0; sweep < sweeps; sweep++) {
    for (const p of s.params) stepParameter(s, p);
    for (const id of s.moveIds) stepMove(s, id);
  }
  setZeroPoint(s);
  return fitOf(s);
}

function key(kind: RaschKind, id: string): string {
  return `${kind}\u0000${id}`;
}

/**
 * What the sweeps work on: the sorted parameters with their cells, children and moves. `value`, `info`, `effect` and
 * `moveInfo` change in place with every Newton step.
 */
interface RaschState {
  params: RaschParameter[];
  /** The cells whose agent, environment and user are all parameters (and that have plays). */
  used: RaschCell[];
  value: Map<string, number>;
  info: Map<string, number>;
  byParam: Map<string, RaschCell[]>;
  childrenOf: Map<string, RaschParameter[]>;
  priorOfMove: Map<string, RaschMovePrior>;
  moveIds: string[];
  effect: Map<string, number>;
  madeWith: Map<string, RaschParameter[]>;
  moveInfo: Map<string, number>;
}

function sortedParameters(parameters: RaschParameter[]): RaschParameter[] {
  // Parents before children, so a child's prior mean is its parent's estimate of the same sweep.
  const byKey = new Map(parameters.map((p) => [key(p.kind, p.id), p]));
  const depth = (p: RaschParameter, seen = 0): number => {
    const parent = p.parent ? byKey.get(key(p.kind, p.parent)) : undefined;
    return parent && seen < 1000 ? 1 + depth(parent, seen + 1) : 0;
  };
  return parameters
    .map((p) => ({ p, d: depth(p) }))
    .sort((a, b) => a.p.kind.localeCompare(b.p.kind) || a.d - b.d || a.p.id.localeCompare(b.p.id))
    .map((x) => x.p);
}

function raschState(params: RaschParameter[], cells: RaschCell[], movePriors: RaschMovePrior[]): RaschState {
  const value = new Map<string, number>(params.map((p) => [key(p.kind, p.id), 0]));
  const info = new Map<string, number>();
  const byParam = new Map<string, RaschCell[]>(params.map((p) => [key(p.kind, p.id), []]));
  const used = cells.filter((c) => c.trials > 0 && value.has(key('agent', c.agent)) && value.has(key('environment', c.env)) && value.has(key('user', c.user)));
  for (const c of used) {
    byParam.get(key('agent', c.agent))!.push(c);
    byParam.get(key('environment', c.env))!.push(c);
    byParam.get(key('user', c.user))!.push(c);
  }

  // Children of each parameter (same kind, known parent) and the children made with each move.
  const childrenOf = new Map<string, RaschParameter[]>();
  for (const p of params) if (hasParent(value, p)) childrenOf.set(key(p.kind, p.parent!), [...(childrenOf.get(key(p.kind, p.parent!)) ?? []), p]);
  const priorOfMove = new Map(movePriors.map((m) => [m.id, m]));
  const moveIds = [...new Set([...params.filter((p) => hasParent(value, p)).flatMap((p) => (p.moves ?? []).map((m) => m.id)), ...movePriors.map((m) => m.id)])].sort();
  const effect = new Map<string, number>(moveIds.map((id) => [id, priorOfMove.get(id)?.mean ?? 0]));
  const madeWith = new Map<string, RaschParameter[]>(moveIds.map((id) => [id, []]));
  for (const p of params) if (hasParent(value, p)) for (const m of p.moves ?? []) madeWith.get(m.id)!.push(p);
  const moveInfo = new Map<string, number>();
  return { params, used, value, info, byParam, childrenOf, priorOfMove, moveIds, effect, madeWith, moveInfo };
}

function hasParent(value: Map<string, number>, p: RaschParameter): boolean {
  return !!p.parent && value.has(key(p.kind, p.parent));
}

/** The prior mean of a parameter: its parent plus its moves, or 0. */
function priorMean(s: RaschState, p: RaschParameter): number {
  return hasParent(s.value, p) ? s.value.get(key(p.kind, p.parent!))! + (p.moves ?? []).reduce((t, m) => t + m.steps * s.effect.get(m.id)!, 0) : 0;
}

function eta(value: Map<string, number>, c: RaschCell): number {
  return value.get(key('agent', c.agent))! - value.get(key('environment', c.env))! - value.get(key('user', c.user))!;
}

/** One Newton step of one parameter: its own prior, its children's priors and its cells. */
function stepParameter(s: RaschState, p: RaschParameter): void {
  const k = key(p.kind, p.id);
  const sign = p.kind === 'agent' ? 1 : -1;
  const x = s.value.get(k)!;
  const prec = 1 / (p.priorSd * p.priorSd);
  let grad = -(x - priorMean(s, p)) * prec;
  let hess = prec;
  // Each child's prior pulls its parent toward the child minus the child's moves.
  for (const c of s.childrenOf.get(k) ?? []) {
    const cp = 1 / (c.priorSd * c.priorSd);
    grad += (s.value.get(key(c.kind, c.id))! - priorMean(s, c)) * cp;
    hess += cp;
  }
  for (const c of s.byParam.get(k)!) {
    const q = logistic(eta(s.value, c));
    grad += sign * (c.successes - c.trials * q);
    hess += c.trials * q * (1 - q);
  }
  const step = Math.max(-maxStep, Math.min(maxStep, grad / hess));
  s.value.set(k, x + step);
  s.info.set(k, hess);
}

/** One Newton step of one move's effect: its prior and the priors of the children made with it. */
function stepMove(s: RaschState, id: string): void {
  const prior = s.priorOfMove.get(id);
  const prec = prior ? 1 / (prior.sd * prior.sd) : 1;
  let grad = -(s.effect.get(id)! - (prior?.mean ?? 0)) * prec;
  let hess = prec;
  for (const c of s.madeWith.get(id)!) {
    const steps = (c.moves ?? []).filter((m) => m.id === id).reduce((t, m) => t + m.steps, 0);
    const cp = 1 / (c.priorSd * c.priorSd);
    grad += steps * (s.value.get(key(c.kind, c.id))! - priorMean(s, c)) * cp;
    hess += steps * steps * cp;
  }
  s.effect.set(id, s.effect.get(id)! + Math.max(-maxStep, Math.min(maxStep, grad / hess)));
  s.moveInfo.set(id, hess);
}

/** The zero point: translate environments and users so their anchors average 0; agents move with both. */
function setZeroPoint(s: RaschState): void {
  const meanOf = (kind: RaschKind): number => {
    const xs = s.params.filter((p) => p.kind === kind && p.anchor).map((p) => s.value.get(key(p.kind, p.id))!);
    return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0;
  };
  const shiftEnv = meanOf('environment');
  const shiftUser = meanOf('user');
  for (const p of s.params) {
    const k = key(p.kind, p.id);
    const shift = p.kind === 'environment' ? shiftEnv : p.kind === 'user' ? shiftUser : shiftEnv + shiftUser;
    s.value.set(k, s.value.get(k)! - shift);
  }
}

function fitOf(s: RaschState): RaschFit {
  const trialsOf = (k: string): number => s.byParam.get(k)!.reduce((t, c) => t + c.trials, 0);
  const estimates = (kind: RaschKind): Map<string, RaschEstimate> =>
    new Map(s.params.filter((p) => p.kind === kind).map((p) => {
      const k = key(p.kind, p.id);
      return [p.id, { kind, id: p.id, value: s.value.get(k)!, se: 1 / Math.sqrt(s.info.get(k) ?? 1 / (p.priorSd * p.priorSd)), trials: trialsOf(k) }];
    }));
  const agents = estimates('agent');
  const environments = estimates('environment');
  const users = estimates('user');
  const moves = new Map<string, RaschEstimate>(s.moveIds.map((id) => {
    const made = s.madeWith.get(id)!;
    return [id, { kind: made[0]?.kind ?? 'environment', id, value: s.effect.get(id)!, se: 1 / Math.sqrt(s.moveInfo.get(id) ?? 1), trials: made.reduce((t, c) => t + trialsOf(key(c.kind, c.id)), 0) }];
  }));
  const v = (m: Map<string, RaschEstimate>, id: string): number => m.get(id)?.value ?? 0;
  const se = (m: Map<string, RaschEstimate>, id: string): number => m.get(id)?.se ?? 2;
  return {
    agents,
    environments,
    users,
    moves,
    trials: s.used.reduce((t, c) => t + c.trials, 0),
    predict: (a, e, u) => logistic(v(agents, a) - v(environments, e) - v(users, u)),
    predictionSe: (a, e, u) => Math.sqrt(se(agents, a) ** 2 + se(environments, e) ** 2 + se(users, u) ** 2),
  };
}
