import { zeroUsage } from '../../core/ports/model.js';
import { hashString } from '../../core/ports/rng.js';
import type { Rng } from '../../core/ports/rng.js';
import { realismBounds } from '../../core/evolution/realism.js';
import type { Direction, Proposal, UserEvolverRole } from '../../core/roles/ports.js';
import type { UserProfile } from '../../core/spec/user.js';
import { disclosureModes, expertiseLevels, nonCollaborativeModes, userProfileSchema } from '../../core/spec/user.js';

export const builtinUserEvolverLabel = 'built-in user knob moves (not an LLM)';

type Behavior = UserProfile['behavior'];
type Persona = UserProfile['persona'];

/** A knob move: the new behaviour/persona, or undefined when it would leave the human-like bounds or change nothing. */
interface UserMove { name: string; apply(b: Behavior, p: Persona, rng: Rng): { b: Behavior; p: Persona } | undefined }

const within = (name: 'cooperativeness' | 'patience' | 'ambiguity', v: number): boolean => v >= realismBounds[name].min && v <= realismBounds[name].max;
const round2 = (x: number): number => Math.round(x * 100) / 100;
const shift = (name: 'cooperativeness' | 'ambiguity', delta: number): UserMove['apply'] => (b, p) => {
  const v = round2(b[name] + delta);
  return within(name, v) && v !== b[name] ? { b: { ...b, [name]: v }, p } : undefined;
};
const disclosureStep = (delta: number): UserMove['apply'] => (b, p) => {
  // upfront → on_request → incremental is the order of less disclosure.
  const i = disclosureModes.indexOf(b.disclosure) + delta;
  const next = disclosureModes[i];
  return next ? { b: { ...b, disclosure: next }, p } : undefined;
};

const harderMoves: UserMove[] = [
  { name: 'less_disclosure', apply: disclosureStep(1) },
  { name: 'more_ambiguity', apply: shift('ambiguity', 0.15) },
  { name: 'less_patience', apply: (b, p) => (within('patience', b.patience - 3) ? { b: { ...b, patience: b.patience - 3 }, p } : undefined) },
  { name: 'less_cooperative', apply: shift('cooperativeness', -0.15) },
  { name: 'other_expertise', apply: (b, p, rng) => ({ b, p: { ...p, expertise: rng.pick(expertiseLevels.filter((e) => e !== p.expertise)) } }) },
  {
    name: 'enable_non_collaborative',
    apply: (b, p, rng) => {
      const off = nonCollaborativeModes.filter((m) => !b.nonCollaborative.includes(m));
      if (off.length === 0 || b.nonCollaborative.length >= realismBounds.maxNonCollaborativeModes) return undefined;
      return { b: { ...b, nonCollaborative: [...b.nonCollaborative, rng.pick(off)] }, p };
    },
  },
];

const easierMoves: UserMove[] = [
  { name: 'more_disclosure', apply: disclosureStep(-1) },
  { name: 'less_ambiguity', apply: shift('ambiguity', -0.15) },
  { name: 'more_patience', apply: (b, p) => (within('patience', b.patience + 3) ? { b: { ...b, patience: b.patience + 3 }, p } : undefined) },
  { name: 'more_cooperative', apply: shift('cooperativeness', 0.15) },
  { name: 'other_expertise', apply: harderMoves[4]!.apply },
  {
    name: 'disable_non_collaborative',
    apply: (b, p, rng) => (b.nonCollaborative.length === 0 ? undefined : { b: { ...b, nonCollaborative: b.nonCollaborative.filter((m) => m !== rng.pick(b.nonCollaborative)) }, p }),
  },
];

/** One knob move in the given direction, picked at random among the moves that stay inside the realism bounds. */
export function evolveUser(parent: UserProfile, direction: Direction, generation: number, rng: Rng): Proposal<UserProfile> {
  const usage = zeroUsage();
  for (const move of rng.shuffle(direction === 'harder' ? harderMoves : easierMoves)) {
    const moved = move.apply(parent.behavior, parent.persona, rng);
    if (!moved) continue;
    const operator = `${direction}:${move.name}`;
    const root = parent.id.replace(/-u[0-9a-f]{8}$/, '');
    const id = `${root}-u${hashString(`${parent.id}/${operator}/${generation}/${JSON.stringify(moved)}`).toString(16).padStart(8, '0')}`;
    const child = userProfileSchema.parse({ ...parent, id, behavior: moved.b, persona: moved.p, lineage: { parent: parent.id, operator, generation } });
    return { ok: true, child, operator, usage };
  }
  return { ok: false, operator: `${direction}:any`, reason: `every ${direction} move of user ${parent.id} would leave the human-like bounds; try the other direction`, usage };
}

export function createBuiltinUserEvolver(): UserEvolverRole {
  return { kind: 'builtin', label: builtinUserEvolverLabel, propose: async ({ parent, direction, generation, rng }) => evolveUser(parent, direction, generation, rng) };
}
