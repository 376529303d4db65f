import { logistic } from './distributions.js';

/**
 * Measured difficulty: a Rasch model P(success) = sigmoid(θ_agent − b_env − u_user) fitted by penalised maximum
 * likelihood, so environments, users and agents sit on one logit scale. Deterministic: a fixed number of sweeps of
 * one-dimensional Newton steps in sorted order. The zero point is a translation applied after the fit (it leaves
 * every prediction unchanged): the mean of the anchor environments and the mean of the anchor users are 0.
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
  trials: number;
  /** P(success) for a combination; parameters the fit never saw count as 0 (the scale's centre). */
  predict(agent: string, env: string, user: string): number;
  /** The linear predictor's standard error for a combination (independent parameters). */
  predictionSe(agent: string, env: string, user: string): number;
}

const sweeps = 40;
const maxStep = 1.5;

export function fitRasch(parameters: RaschParameter[], cells: RaschCell[]): RaschFit {
  const key = (kind: RaschKind, id: string): string => `${kind}\u0000${id}`;
  // Parents before children, so a child's prior mean is its parent's estimate of the same sweep.
  const byKey = new Map(parameters.map((p) => [key(p.kind, p.id), p]));
  const depth = (p: RaschParameter, seen = 0): number => {
    const parent = p.parent ? byKey.get(key(p.kind, p.parent)) : undefined;
    return parent && seen < 1000 ? 1 + depth(parent, seen + 1) : 0;
  };
  const params = parameters
    .map((p) => ({ p, d: depth(p) }))
    .sort((a, b) => a.p.kind.localeCompare(b.p.kind) || a.d - b.d || a.p.id.localeCompare(b.p.id))
    .map((x) => x.p);
  const value = new Map<string, number>(params.map((p) => [key(p.kind, p.id), 0]));
  const info = new Map<string, number>();
  const byParam = new Map<string, RaschCell[]>(params.map((p) => [key(p.kind, p.id), []]));
  const used = cells.filter((c) => c.trials > 0 && value.has(key('agent', c.agent)) && value.has(key('environment', c.env)) && value.has(key('user', c.user)));
  for (const c of used) {
    byParam.get(key('agent', c.agent))!.push(c);
    byParam.get(key('environment', c.env))!.push(c);
    byParam.get(key('user', c.user))!.push(c);
  }
  const eta = (c: RaschCell): number => value.get(key('agent', c.agent))! - value.get(key('environment', c.env))! - value.get(key('user', c.user))!;

  for (let sweep = 0; sweep < sweeps; sweep++) {
    for (const p of params) {
      const k = key(p.kind, p.id);
      const sign = p.kind === 'agent' ? 1 : -1;
      const x = value.get(k)!;
      const mu = p.parent ? (value.get(key(p.kind, p.parent)) ?? 0) : 0;
      const prec = 1 / (p.priorSd * p.priorSd);
      let grad = -(x - mu) * prec;
      let hess = prec;
      for (const c of byParam.get(k)!) {
        const q = logistic(eta(c));
        grad += sign * (c.successes - c.trials * q);
        hess += c.trials * q * (1 - q);
      }
      const step = Math.max(-maxStep, Math.min(maxStep, grad / hess));
      value.set(k, x + step);
      info.set(k, hess);
    }
  }

  // The zero point: translate environments and users so their anchors average 0; agents move with both.
  const meanOf = (kind: RaschKind): number => {
    const xs = params.filter((p) => p.kind === kind && p.anchor).map((p) => value.get(key(p.kind, p.id))!);
    return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0;
  };
  const shiftEnv = meanOf('environment');
  const shiftUser = meanOf('user');
  for (const p of params) {
    const k = key(p.kind, p.id);
    const shift = p.kind === 'environment' ? shiftEnv : p.kind === 'user' ? shiftUser : shiftEnv + shiftUser;
    value.set(k, value.get(k)! - shift);
  }

  const estimates = (kind: RaschKind): Map<string, RaschEstimate> =>
    new Map(params.filter((p) => p.kind === kind).map((p) => {
      const k = key(p.kind, p.id);
      const trials = byParam.get(k)!.reduce((s, c) => s + c.trials, 0);
      return [p.id, { kind, id: p.id, value: value.get(k)!, se: 1 / Math.sqrt(info.get(k) ?? 1 / (p.priorSd * p.priorSd)), trials }];
    }));
  const agents = estimates('agent');
  const environments = estimates('environment');
  const users = estimates('user');
  const v = (m: Map<string, RaschEstimate>, id: string): number => m.get(id)?.value ?? 0;
  const se = (m: Map<string, RaschEstimate>, id: string): number => m.get(id)?.se ?? 2;
  return {
    agents,
    environments,
    users,
    trials: used.reduce((s, c) => s + c.trials, 0),
    predict: (a, e, u) => logistic(v(agents, a) - v(environments, e) - v(users, u)),
    predictionSe: (a, e, u) => Math.sqrt(se(agents, a) ** 2 + se(environments, e) ** 2 + se(users, u) ** 2),
  };
}
