import { specApiVersion } from '../../core/spec/common.js';
import type { UserProfile } from '../../core/spec/user.js';
import { userProfileSchema } from '../../core/spec/user.js';

// Patience is in agent turns (commands and messages): the built-in agent takes about 5-12 on a level-2 task, and a
// user starts to give up past a third of its patience, so every seed's patience is in the range where a step binds.
type Seed = Pick<UserProfile, 'id' | 'persona'> & { behavior: Partial<UserProfile['behavior']> };

const seed = (s: Seed): UserProfile =>
  userProfileSchema.parse({ apiVersion: specApiVersion, kind: 'User', id: s.id, persona: s.persona, behavior: s.behavior, provenance: { source: 'builtin:seed-users', author: 'coevolve' } });

/** Answers fully and kindly, explains little of the technical side. */
export const cooperativeNovice = (): UserProfile => seed({
  id: 'cooperative-novice',
  persona: { name: 'Sam', background: 'Office manager who inherited a small server and wants it to just work.', expertise: 'novice', style: 'friendly' },
  behavior: { cooperativeness: 0.95, patience: 30, disclosure: 'on_request', ambiguity: 0.3, errorReaction: 'calm', verbosity: 0.7 },
});

/** Knows exactly what they want, says it in few words, one thing at a time. */
export const terseExpert = (): UserProfile => seed({
  id: 'terse-expert',
  persona: { name: 'Kim', background: 'Site reliability engineer between two incidents.', expertise: 'expert', style: 'terse' },
  behavior: { cooperativeness: 0.85, patience: 16, disclosure: 'incremental', ambiguity: 0.2, errorReaction: 'frustrated', verbosity: 0.1 },
});

/** Wants it done now, answers in fragments, gets short with repeated questions. */
export const impatientManager = (): UserProfile => seed({
  id: 'impatient-manager',
  persona: { name: 'Alex', background: 'Team lead who needs the numbers for a meeting in ten minutes.', expertise: 'intermediate', style: 'hurried' },
  behavior: { cooperativeness: 0.8, patience: 20, disclosure: 'on_request', ambiguity: 0.5, errorReaction: 'accusatory', verbosity: 0.3, nonCollaborative: ['impatience'] },
});

/** Says everything in the first message: the easy case, useful as a baseline. */
export const upfrontPlanner = (): UserProfile => seed({
  id: 'upfront-planner',
  persona: { name: 'Robin', background: 'Analyst who writes tickets with every detail.', expertise: 'intermediate', style: 'formal' },
  behavior: { cooperativeness: 1, patience: 16, disclosure: 'upfront', ambiguity: 0.1, errorReaction: 'calm', verbosity: 0.8 },
});

/** Friendly but drifts off topic and half-answers; a realistic hard case. */
export const distractedHelper = (): UserProfile => seed({
  id: 'distracted-helper',
  persona: { name: 'Jo', background: 'Researcher juggling three deadlines.', expertise: 'intermediate', style: 'chatty' },
  behavior: { cooperativeness: 0.8, patience: 20, disclosure: 'on_request', ambiguity: 0.4, errorReaction: 'calm', verbosity: 0.9, nonCollaborative: ['tangent'] },
});

/** The built-in seed users, fresh objects each call. */
export function seedUsers(): UserProfile[] {
  return [cooperativeNovice(), terseExpert(), impatientManager(), upfrontPlanner(), distractedHelper()];
}
