import { parseSpecText } from '../../spec/parse.js';
import { formatPath } from '../../spec/problems.js';
import type { SpecKind, SpecOfKind } from '../../spec/kinds.js';
import type { Validated } from './structuredOutput.js';

/**
 * Validates a model-written spec with the same validator as the editor, so the model gets the messages a person
 * would (did-you-mean for unknown keys, cross-field rules), each at its path in the spec.
 */
export function validateSpecJson<K extends SpecKind>(kind: K, json: unknown): Validated<SpecOfKind[K]> {
  const parsed = parseSpecText(JSON.stringify(json, null, 2), `child.${kind.toLowerCase()}.json`, kind);
  if (parsed.spec) return { ok: true, value: parsed.spec as SpecOfKind[K] };
  const problems = parsed.problems.filter((p) => p.severity === 'error').map((p) => `${p.path.length > 0 ? formatPath(p.path) : '(root)'}: ${p.message}`);
  return { ok: false, problems: problems.length > 0 ? problems : ['(root): the spec is invalid'] };
}
