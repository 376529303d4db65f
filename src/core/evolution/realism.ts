import type { UserProfile } from '../spec/user.js';

/**
 * Human-like bounds for simulated users (Sim2Real: real users are less cooperative than LLM users, but a user
 * nobody could satisfy teaches nothing). User evolution may move knobs only inside these bounds.
 */
export const realismBounds = {
  cooperativeness: { min: 0.2, max: 1 },
  patience: { min: 3, max: 40 },
  ambiguity: { min: 0, max: 0.9 },
  verbosity: { min: 0.05, max: 1 },
  maxNonCollaborativeModes: 2,
} as const;

/** Problems that put a user outside human-like bounds; empty when realistic. */
export function realismProblems(user: UserProfile): string[] {
  const b = user.behavior;
  const out: string[] = [];
  const check = (name: 'cooperativeness' | 'patience' | 'ambiguity' | 'verbosity', value: number): void => {
    const r = realismBounds[name];
    if (value < r.min || value > r.max) out.push(`${name} ${value} outside human-like range ${r.min}..${r.max}`);
  };
  check('cooperativeness', b.cooperativeness);
  check('patience', b.patience);
  check('ambiguity', b.ambiguity);
  check('verbosity', b.verbosity);
  if (b.nonCollaborative.length > realismBounds.maxNonCollaborativeModes) {
    out.push(`${b.nonCollaborative.length} non-collaborative modes at once (at most ${realismBounds.maxNonCollaborativeModes})`);
  }
  return out;
}
