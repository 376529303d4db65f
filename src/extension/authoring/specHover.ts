// Hover text for a key in a spec file: the field's path, its zod description, what it accepts and its default.
// Plain markdown text; the vscode adapter wraps it.
import { expectation } from '../../core/spec/issueMessages.js';
import { formatPath } from '../../core/spec/problems.js';
import { descriptionOf, schemaAt } from '../../core/spec/schemaAt.js';
import { defaultOf, isRequired, knobAt, looseInput, rootSchema, showDefault, specKindOf } from './specSchema.js';
import { keyPathAt } from './yamlCursor.js';

export interface SpecHover {
  markdown: string;
  /** 0-based columns of the key on the hovered line. */
  start: number;
  end: number;
}

export function specHover(file: string, text: string, line: number, character: number): SpecHover | undefined {
  const kind = specKindOf(file, text);
  if (!kind) return undefined;
  const at = keyPathAt(text, line, character);
  if (!at) return undefined;
  const input = looseInput(text);
  const schema = schemaAt(rootSchema(kind), at.path, input);
  const title = `**${formatPath(at.path)}**`;
  const knob = knobAt(kind, at.path);
  if (!schema) return undefined;
  const lines: string[] = [title];
  const description = knob?.description ?? descriptionOf(schema);
  if (description) lines.push('', description);
  const facts: string[] = [`Accepts ${expectation(schema)}`];
  if (knob) facts.push(`built-in families use ${knob.min}..${knob.max}`);
  if (isRequired(schema)) facts.push('required');
  else {
    const shown = showDefault(defaultOf(schema)?.value);
    if (shown !== undefined) facts.push(`default \`${shown}\``);
    else facts.push(defaultOf(schema) ? 'optional; defaults apply' : 'optional');
  }
  lines.push('', facts.join(' · '));
  return { markdown: lines.join('\n'), start: at.keyStart, end: at.keyEnd };
}
