// Completion candidates for a spec file at a position, from the zod schema: the keys valid in the mapping at the
// cursor (minus those already there), enum and boolean values, with what each accepts (ranges included) as detail.
// Plain data; the vscode adapter turns it into CompletionItems.
import type { z } from 'zod';
import { standardKnobs } from '../../builtin/families/family.js';
import { expectation } from '../../core/spec/issueMessages.js';
import type { SpecKind } from '../../core/spec/kinds.js';
import { defOf, descriptionOf, literalValues, objectKeys, pickUnionOption, schemaAt, unwrap, valueAt } from '../../core/spec/schemaAt.js';
import { fieldSkeleton } from './skeleton.js';
import { defaultOf, isRequired, looseInput, rootSchema, showDefault, specKindOf, typeOf } from './specSchema.js';
import { cursorAt } from './yamlCursor.js';

export interface SpecCompletion {
  label: string;
  kind: 'key' | 'value';
  /** What the field accepts ("an integer between 16 and 65536 · default 256"). */
  detail: string;
  documentation?: string;
  /** The text replacing `start..end` on the cursor line; may span several lines (a skeleton). */
  insertText: string;
  required: boolean;
  /** 0-based columns on the cursor line that the completion replaces. */
  start: number;
  end: number;
}

/** Completions at a 0-based line and character of a spec file's text; empty where nothing applies. */
export function specCompletions(file: string, text: string, line: number, character: number): SpecCompletion[] {
  const kind = specKindOf(file, text);
  if (!kind) return topLevelKindHint(text, line, character);
  const cursor = cursorAt(text, line, character);
  if (cursor.kind === 'none') return [];
  const root = rootSchema(kind);
  const input = looseInput(text);
  const lineText = text.split(/\r?\n/)[line] ?? '';

  if (cursor.kind === 'key') {
    const mapping = schemaAt(root, cursor.path, input);
    if (!mapping) return [];
    const hasColon = /^\s*:/.test(lineText.slice(cursor.end));
    const existing = new Set(cursor.existingKeys);
    if (defOf(unwrap(mapping)).type === 'record') return recordKeyCompletions(kind, cursor.path, mapping, existing, cursor, hasColon);
    const value = valueAt(input, cursor.path);
    const shape = shapeOf(mapping, value);
    const out: SpecCompletion[] = [];
    for (const key of objectKeys(mapping, value)) {
      if (existing.has(key)) continue;
      const child = shape[key];
      if (!child) continue;
      const required = isRequired(child);
      out.push({
        label: key,
        kind: 'key',
        detail: detailOf(child, required),
        ...docOf(child),
        insertText: hasColon ? key : cursor.flow ? `${key}: ` : keyInsertText(key, child, cursor.indent),
        required,
        start: cursor.start,
        end: cursor.end,
      });
    }
    // Required fields first, then the file's order of the schema.
    return out.sort((a, b) => Number(b.required) - Number(a.required));
  }

  const schema = schemaAt(root, cursor.path, input);
  if (!schema) return [];
  const values = valueChoices(schema);
  return values.map((v) => ({
    label: v,
    kind: 'value' as const,
    detail: expectation(schema),
    ...docOf(schema),
    insertText: v,
    required: false,
    start: cursor.start,
    end: Math.max(cursor.end, lineEndOfValue(lineText, cursor.start)),
  }));
}

function shapeOf(schema: z.ZodType, value: unknown): Record<string, z.ZodType> {
  let s = unwrap(schema);
  if (defOf(s).type === 'union') s = unwrap(pickUnionOption(s, value) ?? s);
  return defOf(s).shape ?? {};
}

function valueChoices(schema: z.ZodType): string[] {
  const type = typeOf(schema);
  if (type === 'boolean') return ['true', 'false'];
  if (type === 'enum' || type === 'literal') return literalValues(unwrap(schema)).map((v) => String(v));
  return [];
}

/** "an integer between 16 and 65536 · default 256" or "text · required". */
function detailOf(schema: z.ZodType, required: boolean): string {
  const parts = [expectation(schema)];
  if (required) parts.push('required');
  else {
    const shown = showDefault(defaultOf(schema)?.value);
    if (shown !== undefined) parts.push(`default ${shown}`);
  }
  return parts.join(' · ');
}

function docOf(schema: z.ZodType): { documentation?: string } {
  const d = descriptionOf(schema);
  return d ? { documentation: d } : {};
}

/** `key: ` for scalars; for a mapping or list, the key and the skeleton of what it requires on the next lines. */
function keyInsertText(key: string, schema: z.ZodType, indent: number): string {
  const type = typeOf(schema);
  if (type === 'record') return `${key}:\n${' '.repeat(indent + 2)}`;
  if (type === 'object' || type === 'array' || type === 'union') {
    const lines = fieldSkeleton(key, schema, indent);
    // The first line replaces the typed word, which already sits at the indentation.
    const first = lines[0]!.trimStart();
    if (lines.length === 1 && /: (\{\}|\[\])$/.test(first)) return `${key}:\n${' '.repeat(indent + 2)}${type === 'array' ? '- ' : ''}`;
    return [first, ...lines.slice(1)].join('\n');
  }
  if (type === 'string') {
    const lines = fieldSkeleton(key, schema, indent);
    if (lines.length > 1) return `${key}: |\n${' '.repeat(indent + 2)}`;
  }
  return `${key}: `;
}

/** Keys of a record (knobs, env): the built-in knob names under `knobs`, with their ranges. */
function recordKeyCompletions(
  kind: SpecKind,
  path: (string | number)[],
  record: z.ZodType,
  existing: Set<string>,
  cursor: { start: number; end: number },
  hasColon: boolean,
): SpecCompletion[] {
  if (!(kind === 'Environment' && path.length === 1 && path[0] === 'knobs')) return [];
  const valueSchema = defOf(unwrap(record)).valueType;
  const specRange = valueSchema ? expectation(valueSchema) : 'a number';
  return Object.entries(standardKnobs)
    .filter(([name]) => !existing.has(name))
    .map(([name, def]) => ({
      label: name,
      kind: 'key' as const,
      detail: `${def.min}..${def.max} in built-in families (harder going ${def.harder}); the spec accepts ${specRange}`,
      documentation: def.description,
      insertText: hasColon ? name : `${name}: `,
      required: false,
      start: cursor.start,
      end: cursor.end,
    }));
}

/** The end of the value text on a line (before a trailing comment), so an enum completion replaces the whole value. */
function lineEndOfValue(lineText: string, start: number): number {
  const rest = lineText.slice(start);
  const comment = /\s#/.exec(rest);
  const value = comment ? rest.slice(0, comment.index) : rest;
  return start + value.trimEnd().length;
}

/** In a file whose kind is not known yet, the one useful completion is the `kind:` line itself. */
function topLevelKindHint(text: string, line: number, character: number): SpecCompletion[] {
  const lineText = text.split(/\r?\n/)[line] ?? '';
  if (/^\s/.test(lineText) || lineText.slice(0, character).includes(':')) return [];
  return (['Environment', 'User', 'Agent', 'Run'] as const).map((k) => ({
    label: `kind: ${k}`,
    kind: 'key' as const,
    detail: `a ${k} spec`,
    insertText: `kind: ${k}`,
    required: true,
    start: 0,
    end: lineText.length,
  }));
}
