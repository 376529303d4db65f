import { logistic } from '../metrics/distributions.js';
import type { RaschFit } from '../metrics/rasch.js';
import type { DesignMove } from '../roles/ports.js';
import type { EnvironmentSpec } from '../spec/environment.js';
import type { UserProfile } from '../spec/user.js';
import type { PairEntry } from './archive.js';
import { stepPrior } from './frontierModel.js';

/**
 * The frontier controller's choice of children: for every candidate (a parent pair and one of its moves, or a new
 * pairing of an archived environment with an archived user), the fitted model predicts the child's success; the
 * controller takes, niche by niche (family × user archetype, emptiest first), the candidate predicted closest to the
 * band's centre. Easing and hardening moves are equally available; users only move harder (simulated users are
 * already too cooperative, Sim2Real).
 */

export type ChildPlan =
  /** `times` steps of the same move (a parent far from the band needs more than one step; each is one designer edit). */
  | { kind: 'environment'; parent: PairEntry; move: DesignMove; times: number; predicted: number; niche: string }
  | { kind: 'user'; parent: PairEntry; move: DesignMove; predicted: number; niche: string }
  | { kind: 'repair'; envId: string; userId: string; predicted: number; niche: string };

export interface SteeringInput {
  pairs: PairEntry[];
  envs: Map<string, EnvironmentSpec>;
  users: Map<string, UserProfile>;
  /** Environments that may not be parents or be paired (the frozen held-out sets). */
  excludedEnvs: Set<string>;
  fit: RaschFit;
  agentId: string;
  /** Posterior mean success of each active pair, for the niche order. */
  inBand: (pair: PairEntry) => boolean;
  userRoot: (userId: string) => string;
  envMoves: (env: EnvironmentSpec) => DesignMove[];
  userMoves: (user: UserProfile) => DesignMove[];
  /** The fitted effect of one step of a move (environment moves per family, user moves across users), else `prior`. */
  effectOf: (kind: 'environment' | 'user', family: string | undefined, moveId: string, prior?: number) => number;
  /** Whether this move of this parent was already tried (its child is in the archive or was refused). */
  tried: (kind: 'environment' | 'user', parentId: string, operator: string) => boolean;
  count: number;
  maxUserChildren: number;
  maxRepairs: number;
  centre: number;
}

/** How far from the centre a user child's predicted success may be to count as near it (the band's half-width). */
export const userNear = 0.1;

/** Most steps of one move in a child: enough to walk a parent far from the band back within a few generations. */
export const maxSteps = 6;

export function planChildren(input: SteeringInput): ChildPlan[] {
  const { fit, agentId } = input;
  const theta = fit.agents.get(agentId)?.value ?? 0;
  const b = (id: string): number => fit.environments.get(id)?.value ?? 0;
  const u = (id: string): number => fit.users.get(id)?.value ?? 0;
  const nicheOf = (envId: string, userId: string): string => `${input.envs.get(envId)?.family ?? '?'} × ${input.userRoot(userId)}`;
  const existing = new Set(input.pairs.map((p) => `${p.envId}|${p.userId}`));
  const eligible = input.pairs.filter((p) => input.envs.has(p.envId) && input.users.has(p.userId) && !input.excludedEnvs.has(p.envId));

  const candidates: (ChildPlan & { key: string; drop?: number })[] = [];
  for (const parent of eligible) {
    const niche = nicheOf(parent.envId, parent.userId);
    const env = input.envs.get(parent.envId)!;
    for (const move of input.envMoves(env)) {
      const effect = input.effectOf('environment', env.family, move.id, stepPrior(move));
      // The controller never plans more steps than the move allows: a shorter child is not what was predicted.
      for (let times = 1; times <= Math.min(maxSteps, move.maxSteps ?? maxSteps); times++) {
        if (input.tried('environment', parent.envId, Array.from({ length: times }, () => move.id).join('+'))) continue;
        const predicted = logistic(theta - (b(parent.envId) + times * effect) - u(parent.userId));
        candidates.push({ kind: 'environment', parent, move, times, predicted, niche, key: `e|${parent.envId}|${parent.userId}|${move.id}|${times}` });
      }
    }
    for (const move of input.userMoves(input.users.get(parent.userId)!).filter((m) => m.direction === 'harder')) {
      if (input.tried('user', parent.userId, move.id)) continue;
      const predicted = logistic(theta - b(parent.envId) - (u(parent.userId) + input.effectOf('user', undefined, move.id, stepPrior(move))));
      const drop = logistic(theta - b(parent.envId) - u(parent.userId)) - predicted;
      candidates.push({ kind: 'user', parent, move, predicted, niche, key: `u|${parent.envId}|${parent.userId}|${move.id}`, drop });
    }
  }
  // New pairings of measured environments and users (both played at least once), not yet in the archive.
  const measuredEnvs = [...input.envs.keys()].filter((id) => !input.excludedEnvs.has(id) && (fit.environments.get(id)?.trials ?? 0) > 0).sort();
  const measuredUsers = [...input.users.keys()].filter((id) => (fit.users.get(id)?.trials ?? 0) > 0).sort();
  for (const envId of measuredEnvs) {
    for (const userId of measuredUsers) {
      if (existing.has(`${envId}|${userId}`)) continue;
      candidates.push({ kind: 'repair', envId, userId, predicted: logistic(theta - b(envId) - u(userId)), niche: nicheOf(envId, userId), key: `r|${envId}|${userId}` });
    }
  }

  const inBandPerNiche = new Map<string, number>();
  for (const p of eligible) if (!p.retired && !p.quarantined && input.inBand(p)) inBandPerNiche.set(nicheOf(p.envId, p.userId), (inBandPerNiche.get(nicheOf(p.envId, p.userId)) ?? 0) + 1);
  // Niches with the fewest in-band pairs first; among equals the families take turns (a family's emptiest niche, then
  // the next family's), so the children spread across families instead of following the alphabet.
  const familyOf = (niche: string): string => niche.slice(0, niche.indexOf(' × '));
  const byCount = [...new Set(candidates.map((c) => c.niche))].sort((x, y) => (inBandPerNiche.get(x) ?? 0) - (inBandPerNiche.get(y) ?? 0) || x.localeCompare(y));
  const turn = new Map<string, number>();
  const seenPerFamily = new Map<string, number>();
  for (const n of byCount) {
    const k = seenPerFamily.get(familyOf(n)) ?? 0;
    turn.set(n, k);
    seenPerFamily.set(familyOf(n), k + 1);
  }
  const niches = [...byCount].sort((x, y) => (inBandPerNiche.get(x) ?? 0) - (inBandPerNiche.get(y) ?? 0) || turn.get(x)! - turn.get(y)! || x.localeCompare(y));
  const byNiche = new Map<string, (ChildPlan & { key: string })[]>();
  for (const c of candidates) byNiche.set(c.niche, [...(byNiche.get(c.niche) ?? []), c]);
  for (const list of byNiche.values()) list.sort((x, y) => Math.abs(x.predicted - input.centre) - Math.abs(y.predicted - input.centre) || x.key.localeCompare(y.key));

  const chosen: ChildPlan[] = [];
  const usedParents = new Set<string>();
  const usedCombos = new Set<string>();
  // One plan per resulting child: the same move of the same environment (or user) from two pairs makes the same child.
  const usedResults = new Set<string>();
  const resultOf = (c: ChildPlan): string | undefined => (c.kind === 'environment' ? `e|${c.parent.envId}|${c.move.id}|${c.times}` : c.kind === 'user' ? `u|${c.parent.userId}|${c.move.id}` : undefined);
  const take = (c: ChildPlan): void => {
    const r = resultOf(c);
    if (r) usedResults.add(r);
  };
  const fresh = (c: ChildPlan): boolean => {
    const r = resultOf(c);
    return r === undefined || !usedResults.has(r);
  };
  let users = 0, repairs = 0;
  // Users co-evolve every generation: the user slots go first. Among the user moves predicted near the centre, the
  // one predicted to cost its parent's pair the most (a user child is admitted only when its paired plays show it is
  // harder, and a play can only be lost where the parent wins: a small move from a pair at 0.55 lands near the centre
  // too, but 16-48 paired plays cannot see it); then the others, closest to the centre first.
  const near = (c: { predicted: number }): boolean => Math.abs(c.predicted - input.centre) <= userNear;
  const userFirst = candidates.filter((c) => c.kind === 'user').sort((x, y) => Number(near(y)) - Number(near(x))
    || (near(x) ? (y.drop ?? 0) - (x.drop ?? 0) : Math.abs(x.predicted - input.centre) - Math.abs(y.predicted - input.centre)) || x.key.localeCompare(y.key));
  for (const c of userFirst) {
    if (users >= input.maxUserChildren || chosen.length >= input.count || c.kind !== 'user') break;
    if (usedParents.has(`user|${c.parent.pairId}`) || !fresh(c)) continue;
    const list = byNiche.get(c.niche)!;
    list.splice(list.indexOf(c), 1);
    const { key: _key, ...plan } = c;
    chosen.push(plan);
    take(plan);
    usedParents.add(`user|${c.parent.pairId}`);
    users++;
  }
  for (let round = 0; chosen.length < input.count && round < input.count; round++) {
    let progressed = false;
    for (const niche of niches) {
      if (chosen.length >= input.count) break;
      const list = byNiche.get(niche)!;
      const pick = list.find((c) => {
        if (c.kind === 'user' && users >= input.maxUserChildren) return false;
        if (c.kind === 'repair' && (repairs >= input.maxRepairs || usedCombos.has(`${c.envId}|${c.userId}`))) return false;
        if (c.kind !== 'repair' && usedParents.has(`${c.kind}|${c.parent.pairId}`)) return false;
        return fresh(c);
      });
      if (!pick) continue;
      list.splice(list.indexOf(pick), 1);
      const { key: _key, ...plan } = pick;
      chosen.push(plan);
      take(plan);
      progressed = true;
      if (pick.kind === 'user') users++;
      if (pick.kind === 'repair') {
        repairs++;
        usedCombos.add(`${pick.envId}|${pick.userId}`);
      } else usedParents.add(`${pick.kind}|${pick.parent.pairId}`);
    }
    if (!progressed) break;
  }
  return chosen;
}
