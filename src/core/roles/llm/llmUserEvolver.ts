import type { ChatModel } from '../../ports/model.js';
import { userProfileSchema } from '../../spec/user.js';
import type { UserProfile } from '../../spec/user.js';
import type { Direction, PairStats, UserEvolverRole } from '../ports.js';
import { childId, sameContent, withIdentity } from './childIdentity.js';
import { roleMarker } from './roleMarker.js';
import { validateSpecJson } from './specValidation.js';
import { completeStructured, jsonSchemaOf } from './structuredOutput.js';

export const userEvolverInstructions = `You evolve simulated users that test an AI agent working in a terminal. Users should become harder (or easier) the way real people are hard: not as arbitrary adversaries.

You receive a parent user profile (JSON), a direction and how the agent does with this user. Return one complete child profile as a JSON object in the same format.

Harder moves (easier: the inverse): lower cooperativeness; more ambiguity in the opening request; less patience; disclosure "incremental" or "on_request" instead of "upfront"; enable one non-collaborative mode (unavailable_request, tangent, impatience, fragments); a less expert persona; a goal constraint the user only states when asked.

Rules:
- Change one or two things, not everything.
- The user must stay human-like and satisfiable: patience of at least 2, and every fact must still be obtainable by asking.
- Keep fact ids stable; every id in goal.requires must exist in facts.
- The fields id, lineage, apiVersion and kind are filled in for you.`;

function userEvolverRequest(parent: UserProfile, direction: Direction, stats: PairStats): string {
  const { lineage: _lineage, ...shown } = parent;
  return [
    `Make this user ${direction} for the agent.`,
    `How the agent does with this user: success rate ${stats.successRate.toFixed(2)} over ${stats.plays} plays, mean reward ${stats.meanReward.toFixed(2)}.`,
    'Parent profile:',
    JSON.stringify(shown, null, 1),
    'Answer with the complete child profile as one JSON object.',
  ].join('\n\n');
}

/** The LLM user evolver; the controller's realism gate decides whether a child is kept. */
export function createLlmUserEvolver(model: ChatModel, options: { maxRepairs?: number } = {}): UserEvolverRole {
  const maxRepairs = options.maxRepairs ?? 2;
  return {
    kind: 'llm',
    label: model.label,
    ...(model.settings ? { settings: model.settings } : {}),
    async propose({ parent, direction, stats, generation, rng, signal }) {
      const operator = `llm:user-${direction}`;
      const identity = { apiVersion: parent.apiVersion, kind: parent.kind, id: childId(parent.id, generation, rng), lineage: { parent: parent.id, operator, generation } };
      const result = await completeStructured<UserProfile>(model, {
        messages: [
          { role: 'system', content: `${roleMarker('user-evolver')}\n${userEvolverInstructions}` },
          { role: 'user', content: userEvolverRequest(parent, direction, stats) },
        ],
        schema: userProfileSchema,
        schemaName: 'user_profile',
        jsonSchema: jsonSchemaOf(userProfileSchema),
        prepare: (json) => withIdentity(json, identity),
        parse: (json) => validateSpecJson('User', json),
        check: (child) => {
          const problems: string[] = [];
          if (sameContent(parent as unknown as Record<string, unknown>, child as unknown as Record<string, unknown>)) problems.push(`(root): the child is identical to its parent; make it ${direction}`);
          if (child.behavior.patience < 2) problems.push(`behavior.patience: at least 2, so the user can still be satisfied (got ${child.behavior.patience})`);
          return problems;
        },
        maxRepairs,
        seed: rng.int(0, 2 ** 31 - 1),
        ...(signal ? { signal } : {}),
      });
      if (!result.ok) return { ok: false, operator, reason: `user evolver output rejected: ${result.reason}`, usage: result.usage };
      return { ok: true, child: result.value, operator, usage: result.usage, repairs: result.repairs };
    },
  };
}
