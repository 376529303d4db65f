import { pairPosterior, type AgedPlays, type PairPosterior } from '../metrics/pairEvidence.js';
import { fitRasch, type RaschCell, type RaschFit, type RaschMovePrior, type RaschParameter } from '../metrics/rasch.js';
import type { RunConfig } from '../spec/run.js';
import type { Archive, PairEntry } from './archive.js';

/** The fitted model of a generation and every pair's posterior for the current agent. */
export interface FrontierModel {
  fit: RaschFit;
  agentId: string;
  posterior: Map<string, PairPosterior>;
  /** Posterior of a pair that is not (yet) in the archive, from the model alone plus optional plays. */
  posteriorOf(envId: string, userId: string, plays?: AgedPlays[]): PairPosterior;
  /** The seed (root) user a user descends from: the user half of a niche. */
  userRoot(userId: string): string;
  /**
   * The fitted effect of one step of a move applied to this environment family (or to a user), else its prior:
   * `prior` when the caller knows the move (its declared direction or expected effect), else by the id's prefix.
   */
  moveEffect(kind: 'environment' | 'user', family: string | undefined, op: string, prior?: number): number;
}

/** Prior of one step of a move's effect on difficulty (logit scale): by direction, ±0.35, sd 0.5 (ARCHITECTURE.md). */
export const movePrior = { mean: 0.35, sd: 0.5 } as const;

/**
 * The prior effect of one step of a listed move before the run has measured it: the role's expected effect when it
 * states one, else ±0.35 by the move's declared direction (ids need not start with "harder"/"easier": the generic
 * operators' "user:hold-back:f2" is harder, "env:looser-budget" easier).
 */
export function stepPrior(move: { direction: 'harder' | 'easier'; expectedEffect?: number }): number {
  return move.expectedEffect ?? (move.direction === 'harder' ? movePrior.mean : -movePrior.mean);
}
/** Prior sd of a child around its parent plus its moves' effects (the same content with one change). */
export const childSd = 0.5;

/**
 * The fit's name of a move applied to an environment of `family` (`family/op`) or to a user (`user/op`): environment
 * moves are learned per family (each family implements its knobs), user moves across users.
 */
export const fitMoveId = (kind: 'environment' | 'user', family: string | undefined, op: string): string => (kind === 'environment' ? `${family ?? '?'}/${op}` : `user/${op}`);

/** The moves of a lineage operator ("easier:a+easier:a" = two steps of easier:a), as fit move ids with step counts. */
export function operatorMoves(kind: 'environment' | 'user', family: string | undefined, operator: string | null | undefined): { id: string; steps: number }[] {
  if (!operator) return [];
  const steps = new Map<string, number>();
  for (const part of operator.split('+')) steps.set(part, (steps.get(part) ?? 0) + 1);
  return [...steps].map(([op, n]) => ({ id: fitMoveId(kind, family, op), steps: n }));
}

const priorOf = (id: string): RaschMovePrior => {
  const op = id.slice(id.indexOf('/') + 1);
  return { id, mean: op.startsWith('easier') ? -movePrior.mean : op.startsWith('harder') ? movePrior.mean : 0, sd: movePrior.sd };
};

/** Rasch parameters of everything the archive knows: agents in promotion order, raced candidates, envs, users, probes. */
function raschParameters(archive: Archive): RaschParameter[] {
  const { ledger } = archive;
  const params: RaschParameter[] = [];
  for (const a of ledger.agents) params.push({ kind: 'agent', id: a.id, parent: a.parent, priorSd: a.parent ? 1 : 2 });
  const known = new Set(ledger.agents.map((a) => a.id));
  for (const c of ledger.candidates) if (!known.has(c.id)) params.push({ kind: 'agent', id: c.id, parent: c.parent, priorSd: 1 });
  const frozen = new Set(ledger.frozen?.source === 'generated' ? [...ledger.frozen.test, ...ledger.frozen.promotion].map((p) => p.envId) : []);
  const envFamily = new Map<string, string>([...archive.envs.values()].map((e) => [e.id, e.family]));
  for (const e of archive.envs.values()) {
    const parent = e.lineage.parent && archive.envs.has(e.lineage.parent) ? e.lineage.parent : null;
    const moves = parent ? operatorMoves('environment', envFamily.get(parent), e.lineage.operator) : [];
    params.push({ kind: 'environment', id: e.id, parent, priorSd: parent ? childSd : 2, anchor: !parent && !frozen.has(e.id) && e.lineage.generation === 0, moves });
  }
  for (const u of archive.users.values()) {
    const parent = u.lineage.parent && archive.users.has(u.lineage.parent) ? u.lineage.parent : null;
    params.push({ kind: 'user', id: u.id, parent, priorSd: parent ? childSd : 2, anchor: !parent, moves: parent ? operatorMoves('user', undefined, u.lineage.operator) : [] });
  }
  const inArchive = (kind: 'environment' | 'user', id: string): boolean => (kind === 'environment' ? archive.envs.has(id) : archive.users.has(id));
  const seenProbes = new Set<string>();
  for (const pr of archive.ledger.probes ?? []) {
    if (inArchive(pr.kind, pr.id) || seenProbes.has(`${pr.kind}|${pr.id}`) || !inArchive(pr.kind, pr.parent)) continue;
    seenProbes.add(`${pr.kind}|${pr.id}`);
    const family = pr.kind === 'environment' ? envFamily.get(pr.parent) : undefined;
    params.push({ kind: pr.kind, id: pr.id, parent: pr.parent, priorSd: childSd, moves: operatorMoves(pr.kind, family, pr.operator) });
  }
  return params;
}

/** The move priors of every move the archive used. */
function movePriors(params: RaschParameter[]): RaschMovePrior[] {
  return [...new Set(params.flatMap((p) => (p.moves ?? []).map((m) => m.id)))].sort().map(priorOf);
}

function cellsOf(archive: Archive): RaschCell[] {
  return Object.entries(archive.ledger.cells)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => {
      const [agent, env, user] = k.split('|') as [string, string, string];
      return { agent, env, user, successes: v.successes, trials: v.trials };
    });
}

/** A pair's plays aged by promotions since each agent played (agents outside the promotion order are ignored). */
export function agedPlays(archive: Archive, pair: PairEntry, currentAgentId: string): AgedPlays[] {
  const order = archive.ledger.agents.map((a) => a.id);
  const now = order.indexOf(currentAgentId);
  return Object.entries(pair.plays ?? {})
    .filter(([agent]) => order.includes(agent))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([agent, v]) => ({ age: Math.max(0, now - order.indexOf(agent)), successes: v.successes, trials: v.trials }));
}

export function buildFrontierModel(archive: Archive, agentId: string, band: RunConfig['band']): FrontierModel {
  const params = raschParameters(archive);
  const fit = fitRasch(params, cellsOf(archive), movePriors(params));
  const posterior = new Map<string, PairPosterior>();
  for (const p of [...archive.pairs.values()].sort((a, b) => a.pairId.localeCompare(b.pairId))) {
    posterior.set(p.pairId, pairPosterior(agedPlays(archive, p, agentId), fit.predict(agentId, p.envId, p.userId), band));
  }
  const rootCache = new Map<string, string>();
  const userRoot = (id: string): string => {
    const cached = rootCache.get(id);
    if (cached) return cached;
    let cur = id;
    for (let i = 0; i < 1000; i++) {
      const parent = archive.users.get(cur)?.lineage.parent;
      if (!parent || !archive.users.has(parent)) break;
      cur = parent;
    }
    rootCache.set(id, cur);
    return cur;
  };
  return {
    fit,
    agentId,
    posterior,
    posteriorOf: (envId, userId, plays = []) => pairPosterior(plays, fit.predict(agentId, envId, userId), band),
    userRoot,
    moveEffect: (kind, family, op, prior) => {
      const id = fitMoveId(kind, family, op);
      const own = fit.moves.get(id);
      if (own || op.includes(':')) return own?.value ?? prior ?? priorOf(id).mean;
      // A move by direction only ("harder"): the role picks the knob, so its children record the knob moves they made
      // ("harder:hiddenState"); its effect is theirs, weighted by their plays, with the prior as one pseudo-play.
      const prefix = fitMoveId(kind, family, `${op}:`);
      const made = [...fit.moves.values()].filter((m) => m.id.startsWith(prefix) && m.trials > 0);
      const trials = made.reduce((t, m) => t + m.trials, 0);
      return trials === 0 ? priorOf(id).mean : (priorOf(id).mean + made.reduce((t, m) => t + m.value * m.trials, 0)) / (1 + trials);
    },
  };
}
