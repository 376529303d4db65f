import { zeroUsage } from '../core/ports/model.js';
import { createRng, type Rng } from '../core/ports/rng.js';
import type { DesignerRole, DesignMove, Direction, Proposal, UserRole } from '../core/roles/ports.js';
import { environmentSpecSchema, type EnvironmentSpec, type HiddenFact } from '../core/spec/environment.js';
import { userProfileSchema } from '../core/spec/user.js';
import { applyEnvironmentMove, environmentMoves } from './environmentOperators.js';
import { applyUserCentric, heldBackFacts, userCentricMoves } from './userCentricOperators.js';

export const genericDesignerLabel = 'generic operators for any environment (not an LLM)';

/** Every move the generic operators can make on this parent, user-centric first. */
export function genericMoves(parent: EnvironmentSpec): DesignMove[] {
  return [...userCentricMoves(parent), ...environmentMoves(parent)];
}

/** The question an agent that knows it needs a fact asks; it names the fact's topic, never its value. */
export function questionFor(fact: HiddenFact): string {
  const topic = fact.keywords.filter((k) => !['sure', 'confirm', 'correct', 'double-check'].includes(k)).slice(0, 3);
  return `Before I start: what exactly should I use for the ${topic.join(' / ')}? Please give me the exact value.`;
}

/**
 * The satisfiability play of a user-centric child: an agent that asks about every held-back fact, once each, in a
 * dialogue with the built-in rule-based user at full cooperation, must be told every one of them. A child whose
 * facts no question can reach (keywords that never match) is refused.
 */
export async function satisfiabilityPlay(child: EnvironmentSpec, user: UserRole): Promise<string | undefined> {
  const held = heldBackFacts(child);
  if (held.length === 0) return undefined;
  const profile = userProfileSchema.parse({ apiVersion: 'coevolve/v1', kind: 'User', id: 'satisfiability', persona: { name: 'Reference user' }, behavior: { cooperativeness: 1, patience: 100, disclosure: 'on_request', ambiguity: 0.5 } });
  const episode = user.begin({ env: child, profile, rng: createRng(`satisfiability:${child.id}`) });
  const told = new Set((await episode.open()).disclosedFacts);
  for (const f of held) {
    if (told.has(f.id)) continue;
    const reply = await episode.reply(questionFor(f));
    for (const id of reply.disclosedFacts) told.add(id);
    if (reply.stop) break;
  }
  const missing = held.filter((f) => !told.has(f.id)).map((f) => f.id);
  return missing.length > 0 ? `an agent asking about every held-back fact was not told ${missing.join(', ')} (its keywords match no question)` : undefined;
}

function childId(parent: EnvironmentSpec, generation: number, rng: Rng): string {
  const base = parent.id.replace(/-g\d+-[0-9a-f]{6}$/, '').slice(0, 100);
  return `${base}-g${generation}-${rng.int(0, 0xffffff).toString(16).padStart(6, '0')}`;
}

/**
 * The generic designer: single-step moves on any environment (imported Harbor and Terminal-Bench tasks included),
 * offline. The controller lists `moves`, picks one, and `apply` makes the child: same content, that one change, a
 * new id, lineage {parent, operator = move id, generation}. User-centric children must pass the satisfiability play;
 * every child is then re-validated by the controller (the oracle passes, an empty agent fails).
 */
export function createGenericDesigner(options: { satisfiabilityUser: UserRole }): DesignerRole {
  const apply = async (parent: EnvironmentSpec, move: DesignMove, generation: number, rng: Rng): Promise<Proposal<EnvironmentSpec>> => {
    const usage = zeroUsage();
    const made = move.id.startsWith('user:') ? applyUserCentric(parent, move.id) : applyEnvironmentMove(parent, move.id);
    if (typeof made === 'string') return { ok: false, operator: move.id, reason: made, usage };
    made.id = childId(parent, generation, rng);
    made.lineage = { parent: parent.id, operator: move.id, generation };
    const parsed = environmentSpecSchema.safeParse(made);
    if (!parsed.success) return { ok: false, operator: move.id, reason: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '), usage };
    if (move.id.startsWith('user:')) {
      const unsatisfiable = await satisfiabilityPlay(parsed.data, options.satisfiabilityUser);
      if (unsatisfiable) return { ok: false, operator: move.id, reason: unsatisfiable, usage };
    }
    return { ok: true, child: parsed.data, operator: move.id, usage };
  };
  return {
    kind: 'builtin',
    label: genericDesignerLabel,
    moves: (parent) => genericMoves(parent),
    apply: ({ parent, move, generation, rng }) => apply(parent, move, generation, rng),
    propose: async ({ parent, direction, knob, generation, rng }) => {
      const candidates = genericMoves(parent).filter((m) => m.direction === direction && (knob === undefined || m.knob === knob));
      if (candidates.length === 0) return { ok: false, operator: `${direction}:generic`, reason: `no generic ${direction} move is left for ${parent.id}${knob ? ` on ${knob}` : ''}`, usage: zeroUsage() };
      // User-centric moves first: moving facts to the user is what makes the user matter on an imported task.
      const user = candidates.filter((m) => m.id.startsWith('user:'));
      const move = user.length > 0 && rng.chance(0.7) ? rng.pick(user) : rng.pick(candidates);
      return apply(parent, move, generation, rng);
    },
  };
}

/**
 * A designer for mixed populations: the built-in one for the built-in families it can regenerate, the generic
 * operators for every other environment.
 */
export function designerForAnyEnvironment(builtin: DesignerRole, generic: DesignerRole, isBuiltinFamily: (family: string) => boolean): DesignerRole {
  const pick = (env: EnvironmentSpec): DesignerRole => (isBuiltinFamily(env.family) ? builtin : generic);
  const role: DesignerRole = { kind: 'builtin', label: `${builtin.label}; ${generic.label}`, propose: (input) => pick(input.parent).propose(input) };
  // Moves only when both list them: a designer without moves is asked by direction, and so must the pair be.
  if (builtin.moves && builtin.apply && generic.moves && generic.apply) {
    role.moves = (parent) => pick(parent).moves?.(parent) ?? [];
    role.apply = async (input) => pick(input.parent).apply!(input);
  }
  return role;
}

export type { Direction };
