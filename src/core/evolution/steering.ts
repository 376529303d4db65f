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
  /** Whether an active pair's posterior mean success is in the band (niches with fewer in-band pairs go first). */
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
  const scale = scaleOf(input);
  const eligible = input.pairs.filter((p) => input.envs.has(p.envId) && input.users.has(p.userId) && !input.excludedEnvs.has(p.envId));
  const candidates = [...moveCandidates(input, scale, eligible), ...repairCandidates(input, scale)];
  const niches = nicheOrder(input, scale, eligible, candidates);
  const byNiche = candidatesByNiche(candidates, input.centre);
  const choice: Choice = { chosen: [], usedParents: new Set(), usedCombos: new Set(), usedResults: new Set(), users: 0, repairs: 0 };
  chooseUserChildren(input, choice, candidates, byNiche);
  chooseByNiche(input, choice, niches, byNiche);
  return choice.chosen;
}

/** A plan with its tie-breaking key and, for a user move, how much it is predicted to lower its parent pair's success. */
type Candidate = ChildPlan & { key: string; drop?: number };

/** The fitted model's scale for the current agent: its ability, each environment's and user's difficulty, the niches. */
interface Scale {
  theta: number;
  b: (id: string) => number;
  u: (id: string) => number;
  nicheOf: (envId: string, userId: string) => string;
}

function scaleOf(input: SteeringInput): Scale {
  const { fit, agentId } = input;
  const theta = fit.agents.get(agentId)?.value ?? 0;
  const b = (id: string): number => fit.environments.get(id)?.value ?? 0;
  const u = (id: string): number => fit.users.get(id)?.value ?? 0;
  const nicheOf = (envId: string, userId: string): string => `${input.envs.get(envId)?.family ?? '?'} × ${input.userRoot(userId)}`;
  return { theta, b, u, nicheOf };
}

/** Every untried move of every eligible parent pair: its environment's moves (1 to maxSteps steps) and its user's harder moves. */
function moveCandidates(input: SteeringInput, scale: Scale, eligible: PairEntry[]): Candidate[] {
  const { theta, b, u, nicheOf } = scale;
  const candidates: Candidate[] = [];
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
  return candidates;
}

/** New pairings of measured environments and users (both played at least once), not yet in the archive. */
function repairCandidates(input: SteeringInput, scale: Scale): Candidate[] {
  const { fit } = input;
  const { theta, b, u, nicheOf } = scale;
  const existing = new Set(input.pairs.map((p) => `${p.envId}|${p.userId}`));
  const candidates: Candidate[] = [];
  const measuredEnvs = [...input.envs.keys()].filter((id) => !input.excludedEnvs.has(id) && (fit.environments.get(id)?.trials ?? 0) > 0).sort();
  const measuredUsers = [...input.users.keys()].filter((id) => (fit.users.get(id)?.trials ?? 0) > 0).sort();
  for (const envId of measuredEnvs) {
    for (const userId of measuredUsers) {
      if (existing.has(`${envId}|${userId}`)) continue;
      candidates.push({ kind: 'repair', envId, userId, predicted: logistic(theta - b(envId) - u(userId)), niche: nicheOf(envId, userId), key: `r|${envId}|${userId}` });
    }
  }
  return candidates;
}

function nicheOrder(input: SteeringInput, scale: Scale, eligible: PairEntry[], candidates: Candidate[]): string[] {
  const { nicheOf } = scale;
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
  return [...byCount].sort((x, y) => (inBandPerNiche.get(x) ?? 0) - (inBandPerNiche.get(y) ?? 0) || turn.get(x)! - turn.get(y)! || x.localeCompare(y));
}

/** Each niche's candidates, closest to the centre first. */
function candidatesByNiche(candidates: Candidate[], centre: number): Map<string, Candidate[]> {
  const byNiche = new Map<string, Candidate[]>();
  for (const c of candidates) byNiche.set(c.niche, [...(byNiche.get(c.niche) ?? []), c]);
  for (const list of byNiche.values()) list.sort((x, y) => Math.abs(x.predicted - centre) - Math.abs(y.predicted - centre) || x.key.localeCompare(y.key));
  return byNiche;
}

/** The plans chosen so far and what they used up. */
interface Choice {
  chosen: ChildPlan[];
  usedParents: Set<string>;
  usedCombos: Set<string>;
  /** One plan per resulting child: the same move of the same environment (or user) from two pairs makes the same child. */
  usedResults: Set<string>;
  users: number;
  repairs: number;
}

function resultOf(c: ChildPlan): string | undefined {
  return c.kind === 'environment' ? `e|${c.parent.envId}|${c.move.id}|${c.times}` : c.kind === 'user' ? `u|${c.parent.userId}|${c.move.id}` : undefined;
}

function fresh(choice: Choice, c: ChildPlan): boolean {
  const r = resultOf(c);
  return r === undefined || !choice.usedResults.has(r);
}

/** Takes a candidate out of its niche's list into the plan, and records what it uses up. */
function take(choice: Choice, byNiche: Map<string, Candidate[]>, c: Candidate): void {
  const list = byNiche.get(c.niche)!;
  list.splice(list.indexOf(c), 1);
  // The key and the user candidate's predicted drop only order candidates here; the plan leaves without them.
  const { key: _key, drop: _drop, ...plan } = c;
  choice.chosen.push(plan);
  const r = resultOf(plan);
  if (r) choice.usedResults.add(r);
  if (c.kind === 'user') choice.users++;
  if (c.kind === 'repair') {
    choice.repairs++;
    choice.usedCombos.add(`${c.envId}|${c.userId}`);
  } else choice.usedParents.add(`${c.kind}|${c.parent.pairId}`);
}

/**
 * Users co-evolve every generation: the user slots go first. Among the user moves predicted near the centre, the
 * one predicted to cost its parent's pair the most (a user child is admitted only when its paired plays show it is
 * harder, and a play can only be lost where the parent wins: a small move from a pair at 0.55 lands near the centre
 * too, but 16-48 paired plays cannot see it); then the others, closest to the centre first.
 */
function chooseUserChildren(input: SteeringInput, choice: Choice, candidates: Candidate[], byNiche: Map<string, Candidate[]>): void {
  const near = (c: { predicted: number }): boolean => Math.abs(c.predicted - input.centre) <= userNear;
  const userFirst = candidates.filter((c) => c.kind === 'user').sort((x, y) => Number(near(y)) - Number(near(x))
    || (near(x) ? (y.drop ?? 0) - (x.drop ?? 0) : Math.abs(x.predicted - input.centre) - Math.abs(y.predicted - input.centre)) || x.key.localeCompare(y.key));
  for (const c of userFirst) {
    if (choice.users >= input.maxUserChildren || choice.chosen.length >= input.count || c.kind !== 'user') break;
    if (choice.usedParents.has(`user|${c.parent.pairId}`) || !fresh(choice, c)) continue;
    take(choice, byNiche, c);
  }
}

/** Then round by round, each niche in order gets its best candidate still allowed, until the plan is full or none is left. */
function chooseByNiche(input: SteeringInput, choice: Choice, niches: string[], byNiche: Map<string, Candidate[]>): void {
  for (let round = 0; choice.chosen.length < input.count && round < input.count; round++) {
    let progressed = false;
    for (const niche of niches) {
      if (choice.chosen.length >= input.count) break;
      const pick = byNiche.get(niche)!.find((c) => {
        if (c.kind === 'user' && choice.users >= input.maxUserChildren) return false;
        if (c.kind === 'repair' && (choice.repairs >= input.maxRepairs || choice.usedCombos.has(`${c.envId}|${c.userId}`))) return false;
        if (c.kind !== 'repair' && choice.usedParents.has(`${c.kind}|${c.parent.pairId}`)) return false;
        return fresh(choice, c);
      });
      if (!pick) continue;
      take(choice, byNiche, pick);
      progressed = true;
    }
    if (!progressed) break;
  }
}
