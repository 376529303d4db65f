import type { ChatModel } from '../../ports/model.js';
import { environmentSpecSchema } from '../../spec/environment.js';
import type { EnvironmentSpec } from '../../spec/environment.js';
import type { DesignerRole } from '../ports.js';
import { childId, sameContent, withIdentity } from './childIdentity.js';
import { designerRequest, designerSystemPrompt } from './designerPrompt.js';
import { validateSpecJson } from './specValidation.js';
import { completeStructured, jsonSchemaOf } from './structuredOutput.js';

/**
 * The LLM environment designer: a child spec from a parent, a direction and the parent's stats, validated by the
 * spec schema. Invalid output goes back with its positioned problems up to `maxRepairs` times, then the proposal is
 * rejected with the reason.
 */
export function createLlmDesigner(model: ChatModel, options: { maxRepairs?: number } = {}): DesignerRole {
  const maxRepairs = options.maxRepairs ?? 2;
  return {
    kind: 'llm',
    label: model.label,
    ...(model.settings ? { settings: model.settings } : {}),
    async propose({ parent, direction, knob, stats, generation, rng, signal }) {
      const operator = `llm:${direction}${knob ? `:${knob}` : ''}`;
      const identity = {
        apiVersion: parent.apiVersion,
        kind: parent.kind,
        id: childId(parent.id, generation, rng),
        lineage: { parent: parent.id, operator, generation },
      };
      const result = await completeStructured<EnvironmentSpec>(model, {
        messages: [
          { role: 'system', content: designerSystemPrompt() },
          { role: 'user', content: designerRequest(parent, direction, knob, stats) },
        ],
        schema: environmentSpecSchema,
        schemaName: 'environment_spec',
        jsonSchema: jsonSchemaOf(environmentSpecSchema),
        prepare: (json) => withIdentity(json, identity),
        parse: (json) => validateSpecJson('Environment', json),
        check: (child) => childProblems(parent, child, direction, knob),
        maxRepairs,
        seed: rng.int(0, 2 ** 31 - 1),
        ...(signal ? { signal } : {}),
      });
      if (!result.ok) return { ok: false, operator, reason: `designer output rejected: ${result.reason}`, usage: result.usage };
      return { ok: true, child: result.value, operator, usage: result.usage, repairs: result.repairs };
    },
  };
}

/** What zod cannot see: an unchanged child, or a knob moved the wrong way. */
export function childProblems(parent: EnvironmentSpec, child: EnvironmentSpec, direction: 'harder' | 'easier', knob: string | undefined): string[] {
  const problems: string[] = [];
  if (sameContent(parent as unknown as Record<string, unknown>, child as unknown as Record<string, unknown>)) {
    problems.push(`(root): the child is identical to its parent; change it to make it ${direction}`);
  }
  if (knob !== undefined && parent.knobs[knob] !== undefined) {
    const before = parent.knobs[knob] as number;
    const after = child.knobs[knob];
    const moved = after !== undefined && (direction === 'harder' ? after > before : after < before);
    if (!moved) problems.push(`knobs.${knob}: must be ${direction === 'harder' ? 'higher' : 'lower'} than the parent's ${before} for a ${direction} child (got ${after ?? 'nothing'})`);
  }
  return problems;
}
