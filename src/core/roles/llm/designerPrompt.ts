import type { Direction, PairStats } from '../ports.js';
import type { EnvironmentSpec } from '../../spec/environment.js';
import { roleMarker } from './roleMarker.js';

/** Mutation operators the designer may apply (methods §2.3); "easier" applies their inverses. */
export const designerOperators = {
  horizon: 'add a dependent sub-goal, or split one step into two (inverse: merge or drop a sub-goal)',
  hiddenState: 'move information the agent needs into logs, config files or the user\'s hidden facts (inverse: state it in the instruction or a visible file)',
  feedback: 'make error messages and outputs less informative; remove hints from the instruction (inverse: make feedback clearer)',
  distractors: 'add decoy files, misleading but plausible data or irrelevant services (inverse: remove decoys)',
  strictness: 'make the verifier check more edge cases and exact formats (inverse: relax checks that are not essential)',
  robustness: 'break something in the environment the agent must repair first: a permission, a missing directory, a wrong setting (inverse: remove the breakage)',
} as const;

export const designerInstructions = `You design terminal tasks for training and evaluating an AI agent that works in a sandboxed shell with a simulated user.

You receive a parent environment spec (JSON), a direction (harder or easier), optionally a knob to move, and how the current agent does on the parent. Return one complete child environment spec as a JSON object, in the same format as the parent.

Rules:
- The oracle script must still solve the child, and the verifier must pass on the oracle's result and fail when nothing is done.
- The verifier and the oracle are never shown to the agent; files the agent must not see go in verifier.files.
- The user context (request, facts, goal) describes what only the user knows. Never copy hidden facts into the instruction or the workspace.
- Every id in user.requiredFacts must exist in user.facts.
- Change one thing at a time, in the requested direction, and update the knob values, title and difficulty to match.
- Aim for a task that the agent solves about half of the time: the target is the edge of what it can do.
- The fields id, lineage, apiVersion and kind are filled in for you; you may leave them as in the parent.

Operators (harder / easier):
${Object.entries(designerOperators).map(([knob, text]) => `- ${knob}: ${text}`).join('\n')}`;

export function designerSystemPrompt(): string {
  return `${roleMarker('designer')}\n${designerInstructions}`;
}

export function designerRequest(parent: EnvironmentSpec, direction: Direction, knob: string | undefined, stats: PairStats): string {
  const { lineage: _lineage, ...shown } = parent;
  const goal = knob ? `Make it ${direction} by moving the "${knob}" knob (${direction === 'harder' ? 'up' : 'down'}).` : `Make it ${direction}.`;
  return [
    goal,
    `How the agent does on the parent: success rate ${stats.successRate.toFixed(2)} over ${stats.plays} plays, mean reward ${stats.meanReward.toFixed(2)}, regret ${stats.regret.toFixed(2)}.`,
    'Parent spec:',
    JSON.stringify(shown, null, 1),
    'Answer with the complete child spec as one JSON object.',
  ].join('\n\n');
}
