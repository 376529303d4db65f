import { zeroUsage } from '../../core/ports/model.js';
import { hashString } from '../../core/ports/rng.js';
import type { Rng } from '../../core/ports/rng.js';
import { realismBounds } from '../../core/evolution/realism.js';
import type { DesignMove, Direction, Proposal, UserEvolverRole } from '../../core/roles/ports.js';
import type { AgentGenes } from '../../core/spec/agent.js';
import type { UserProfile } from '../../core/spec/user.js';
import { disclosureModes, expertiseLevels, nonCollaborativeModes, userProfileSchema } from '../../core/spec/user.js';
import { estimateMove, moveEstimate } from './moveEffects.js';

export const builtinUserEvolverLabel = 'built-in user knob moves (not an LLM)';

type Behavior = UserProfile['behavior'];
type Persona = UserProfile['persona'];

/** One behaviour move: the changed field, its values, and the moved user; undefined when it would leave the bounds or change nothing. */
interface UserMoveDef {
  name: string;
  direction: Direction;
  knob: string;
  description: string;
  apply(b: Behavior, p: Persona): { b: Behavior; p: Persona; from: number | string; to: number | string } | undefined;
}

const within = (name: 'cooperativeness' | 'patience' | 'ambiguity', v: number): boolean => v >= realismBounds[name].min && v <= realismBounds[name].max;
const round2 = (x: number): number => Math.round(x * 100) / 100;

/** Step sizes, chosen so that one step moves the default agent's success measurably (npm run bench:calibration). */
// The first steps (0.15, 0.1, x0.75) moved success by 0.02-0.06 per play on the loop's own pairs (bench:efficacy, seed 1):
// too little for a paired test on 48 plays to tell, and for the curriculum to feel.
export const userSteps = { ambiguity: 0.25, cooperativeness: 0.2, patienceFactor: 0.6 };

// A step that would cross a bound stops at it; a knob already at its bound has no move past it.
const clampTo = (name: 'cooperativeness' | 'patience' | 'ambiguity', v: number): number => Math.min(realismBounds[name].max, Math.max(realismBounds[name].min, v));
const shift = (name: 'cooperativeness' | 'ambiguity', delta: number): UserMoveDef['apply'] => (b, p) => {
  const v = round2(clampTo(name, b[name] + delta));
  return within(name, b[name]) && v !== b[name] ? { b: { ...b, [name]: v }, p, from: b[name], to: v } : undefined;
};
const patienceStep = (harder: boolean): UserMoveDef['apply'] => (b, p) => {
  const scaled = clampTo('patience', harder ? Math.min(b.patience - 1, Math.round(b.patience * userSteps.patienceFactor)) : Math.max(b.patience + 1, Math.round(b.patience / userSteps.patienceFactor)));
  return within('patience', b.patience) && scaled !== b.patience ? { b: { ...b, patience: scaled }, p, from: b.patience, to: scaled } : undefined;
};
// upfront → on_request → incremental is the order of less disclosure. An upfront user who answers fully when asked
// loses nothing by waiting to be asked (the agent asks: 0 of 24 paired plays differed, bench:calibration), so its
// less disclosure goes to telling one fact per answer.
const disclosureStep = (delta: number): UserMoveDef['apply'] => (b, p) => {
  const next = delta > 0 && b.disclosure === 'upfront' ? 'incremental' : disclosureModes[disclosureModes.indexOf(b.disclosure) + delta];
  return next ? { b: { ...b, disclosure: next }, p, from: b.disclosure, to: next } : undefined;
};
// expert → intermediate → novice is the order of less precise answers.
const expertiseStep = (delta: number): UserMoveDef['apply'] => (b, p) => {
  const order = [...expertiseLevels].reverse();
  const next = order[order.indexOf(p.expertise) + delta];
  return next ? { b, p: { ...p, expertise: next }, from: p.expertise, to: next } : undefined;
};

function moveDefs(): UserMoveDef[] {
  const defs: UserMoveDef[] = [
    { name: 'less_disclosure', direction: 'harder', knob: 'disclosure', description: 'discloses less: upfront → on request → one fact per answer', apply: disclosureStep(1) },
    { name: 'more_disclosure', direction: 'easier', knob: 'disclosure', description: 'discloses more: one fact per answer → on request → upfront', apply: disclosureStep(-1) },
    { name: 'more_ambiguity', direction: 'harder', knob: 'ambiguity', description: `vaguer (+${userSteps.ambiguity}): volunteers less, answers in full less often`, apply: shift('ambiguity', userSteps.ambiguity) },
    { name: 'less_ambiguity', direction: 'easier', knob: 'ambiguity', description: `more precise (-${userSteps.ambiguity})`, apply: shift('ambiguity', -userSteps.ambiguity) },
    { name: 'less_patience', direction: 'harder', knob: 'patience', description: 'waits fewer agent turns', apply: patienceStep(true) },
    { name: 'more_patience', direction: 'easier', knob: 'patience', description: 'waits more agent turns', apply: patienceStep(false) },
    { name: 'less_cooperative', direction: 'harder', knob: 'cooperativeness', description: `answers in full less often (-${userSteps.cooperativeness})`, apply: shift('cooperativeness', -userSteps.cooperativeness) },
    { name: 'more_cooperative', direction: 'easier', knob: 'cooperativeness', description: `answers in full more often (+${userSteps.cooperativeness})`, apply: shift('cooperativeness', userSteps.cooperativeness) },
    { name: 'less_expertise', direction: 'harder', knob: 'expertise', description: 'less expert: answers technical questions less precisely', apply: expertiseStep(1) },
    { name: 'more_expertise', direction: 'easier', knob: 'expertise', description: 'more expert: answers technical questions more precisely', apply: expertiseStep(-1) },
  ];
  for (const mode of nonCollaborativeModes) {
    // An unavailable request costs the user's satisfaction, never the goal: an agent that says it cannot do it
    // copes fully, so enabling it is no harder move (it would only be refused as not harder).
    if (mode !== 'unavailable_request') defs.push({
      name: `enable_${mode}`, direction: 'harder', knob: 'nonCollaborative', description: `starts the non-collaborative behaviour "${mode}"`,
      apply: (b, p) => (b.nonCollaborative.includes(mode) || b.nonCollaborative.length >= realismBounds.maxNonCollaborativeModes ? undefined
        : { b: { ...b, nonCollaborative: [...b.nonCollaborative, mode] }, p, from: b.nonCollaborative.join(',') || 'none', to: [...b.nonCollaborative, mode].join(',') }),
    });
    defs.push({
      name: `disable_${mode}`, direction: 'easier', knob: 'nonCollaborative', description: `stops the non-collaborative behaviour "${mode}"`,
      apply: (b, p) => (!b.nonCollaborative.includes(mode) ? undefined
        : { b: { ...b, nonCollaborative: b.nonCollaborative.filter((m) => m !== mode) }, p, from: b.nonCollaborative.join(','), to: b.nonCollaborative.filter((m) => m !== mode).join(',') || 'none' }),
    });
  }
  return defs;
}

const operatorOf = (d: UserMoveDef): string => `${d.direction}:${d.name}`;

/**
 * Every single-step behaviour move of a user that stays inside the human-like bounds, harder and easier. A harder
 * move is listed only when its estimated effect (moveEffects.ts: the starting agent's dialogues with parent and child
 * on the same tasks) loses at least `minLostShare` of what the parent serves and the child stays realistic there;
 * it carries that estimate as its expected effect. This also drops the moves that cannot change what this user says
 * (expertise at full cooperativeness; answer quality for a user who says everything upfront).
 */
export function userMoves(parent: UserProfile, direction?: Direction, genes?: AgentGenes): DesignMove[] {
  const out: DesignMove[] = [];
  for (const d of moveDefs()) {
    if (direction && d.direction !== direction) continue;
    const moved = d.apply(parent.behavior, parent.persona);
    if (!moved) continue;
    const move: DesignMove = { id: operatorOf(d), direction: d.direction, knob: d.knob, from: moved.from, to: moved.to, description: d.description };
    if (d.direction === 'harder') {
      const e = estimateMove(parent, { ...parent, behavior: moved.b, persona: moved.p }, genes);
      if (e.lostShare < moveEstimate.minLostShare || !e.realistic) continue;
      move.expectedEffect = Math.round(e.expectedEffect * 100) / 100;
    }
    out.push(move);
  }
  return out;
}

/** The child of one listed move: same persona and facts, one behaviour change; new id, lineage operator = the move id. */
export function applyUserMove(parent: UserProfile, moveId: string, generation: number): Proposal<UserProfile> {
  const usage = zeroUsage();
  const def = moveDefs().find((d) => operatorOf(d) === moveId);
  if (!def) return { ok: false, operator: moveId, reason: `unknown user move "${moveId}"; moves are ${moveDefs().map(operatorOf).join(', ')}`, usage };
  const moved = def.apply(parent.behavior, parent.persona);
  if (!moved) return { ok: false, operator: moveId, reason: `${moveId} would take user ${parent.id} outside the human-like bounds or change nothing; choose another move`, usage };
  const root = parent.id.replace(/-u[0-9a-f]{8}$/, '');
  const id = `${root}-u${hashString(`${parent.id}/${moveId}/${generation}/${JSON.stringify([moved.b, moved.p])}`).toString(16).padStart(8, '0')}`;
  const child = userProfileSchema.parse({ ...parent, id, behavior: moved.b, persona: moved.p, lineage: { parent: parent.id, operator: moveId, generation } });
  return { ok: true, child, operator: moveId, usage };
}

/** One move in the given direction, drawn from `rng` among the moves that stay inside the realism bounds. */
export function evolveUser(parent: UserProfile, direction: Direction, generation: number, rng: Rng): Proposal<UserProfile> {
  // Proposing by direction is the port's fallback (the loop lists moves and applies one): any move inside the bounds.
  const moves = moveDefs().filter((d) => d.direction === direction && d.apply(parent.behavior, parent.persona)).map((d) => ({ id: operatorOf(d) }));
  if (moves.length === 0) {
    return { ok: false, operator: `${direction}:any`, reason: `every ${direction} move of user ${parent.id} would leave the human-like bounds; try the other direction`, usage: zeroUsage() };
  }
  return applyUserMove(parent, rng.pick(moves).id, generation);
}

export function createBuiltinUserEvolver(): UserEvolverRole {
  return {
    kind: 'builtin',
    label: builtinUserEvolverLabel,
    propose: async ({ parent, direction, generation, rng }) => evolveUser(parent, direction, generation, rng),
    moves: (parent, agent) => userMoves(parent, undefined, agent?.genes),
    apply: async ({ parent, move, generation }) => applyUserMove(parent, move.id, generation),
  };
}
