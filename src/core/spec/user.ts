import { z } from 'zod';
import { idSchema, lineageSchema, provenanceSchema, specApiVersion } from './common.js';
import { checkReferences, checkUnique, evenWithOtherErrors, field, listOf } from './crossField.js';
import { hiddenFactSchema } from './environment.js';

export const disclosureModes = ['upfront', 'on_request', 'incremental'] as const;
export const errorReactions = ['calm', 'frustrated', 'accusatory'] as const;
export const nonCollaborativeModes = ['unavailable_request', 'tangent', 'impatience', 'fragments'] as const;
export const expertiseLevels = ['novice', 'intermediate', 'expert'] as const;

export const behaviorSchema = z
  .strictObject({
    cooperativeness: z.number().min(0).max(1).default(0.8).describe('Chance (0..1) that the user answers a relevant question fully rather than partly.'),
    patience: z.number().int().min(1).max(100).default(12).describe('Agent turns the user tolerates before giving up (1..100).'),
    disclosure: z.enum(disclosureModes).default('on_request').describe('upfront: states every fact at once; on_request: only when asked; incremental: one fact per answer.'),
    ambiguity: z.number().min(0).max(1).default(0.3).describe('How underspecified the opening request is (0 = precise, 1 = vague).'),
    errorReaction: z.enum(errorReactions).default('calm').describe('Tone after the agent makes a visible mistake.'),
    nonCollaborative: z.array(z.enum(nonCollaborativeModes)).max(4).default([]).describe('Non-collaborative behaviours enabled (unavailable_request, tangent, impatience, fragments).'),
    verbosity: z.number().min(0).max(1).default(0.5).describe('How long the user\'s messages are (0 = terse, 1 = wordy).'),
  })
  .describe('Behaviour knobs of the simulated user.');

export const personaSchema = z
  .strictObject({
    name: z.string().min(1).max(128).describe('How the user is referred to.'),
    background: z.string().max(4096).default('').describe('Who they are and why they need the task done.'),
    expertise: z.enum(expertiseLevels).default('intermediate').describe('Technical expertise: novice, intermediate or expert.'),
    style: z.string().max(256).default('plain').describe('Writing style, e.g. "formal", "terse", "typos".'),
  })
  .describe('Who the simulated user is.');

export const userProfileSchema = z
  .strictObject({
    apiVersion: z.literal(specApiVersion).describe('Spec format version; always "coevolve/v1".'),
    kind: z.literal('User').describe('Always "User" for a user profile.'),
    id: idSchema,
    persona: personaSchema,
    behavior: behaviorSchema.default(behaviorSchema.parse({})),
    facts: z.array(hiddenFactSchema).max(64).default([]).describe('Personal hidden facts, in addition to those an environment gives the user.'),
    goal: z
      .strictObject({
        statement: z.string().min(1).max(4096).describe('The user\'s own goal beyond the task, if any.'),
        requires: z.array(idSchema).max(64).default([]).describe('Ids of facts in `facts` the goal depends on.'),
      })
      .optional()
      .describe('An optional personal goal (imported tau2 scenarios carry one).'),
    lineage: lineageSchema.default({ parent: null, operator: null, generation: 0 }),
    provenance: provenanceSchema.default({}),
  })
  .superRefine((user, ctx) => {
    const ids = checkUnique(listOf(field(user, 'facts')), 'id', ['facts'], 'fact id', ctx);
    checkReferences(listOf(field(field(user, 'goal'), 'requires')), ids, ['goal', 'requires'], (id) => `goal requires fact "${id}", which is not defined in facts`, ctx);
  }, evenWithOtherErrors)
  .describe('A simulated user: persona, behaviour knobs, personal facts and goal.');

export type UserProfile = z.infer<typeof userProfileSchema>;
export type UserBehavior = z.infer<typeof behaviorSchema>;
