// YAML skeletons of a field and the fields it requires, for the "insert missing field" quick fix and for completion
// of mapping keys. Values are placeholders the schema accepts where one exists, so inserting a skeleton never adds
// a new error on the inserted lines (beyond text the user is meant to replace).
import type { z } from 'zod';
import { defOf, literalValues, pickUnionOption, unwrap } from '../../core/spec/schemaAt.js';
import { defaultOf, isRequired } from './specSchema.js';

const textPlaceholders = ['TODO', 'todo', 'todo-id', 'x'];

/** The lines of `name: <value>` (and its required children), indented by `indent` spaces. */
export function fieldSkeleton(name: string, schema: z.ZodType, indent: number): string[] {
  const pad = ' '.repeat(indent);
  const body = valueSkeleton(schema, indent, 0);
  if (body.inline !== undefined) return [`${pad}${name}: ${body.inline}`];
  return [`${pad}${name}:${body.header ?? ''}`, ...body.lines];
}

/** The required fields of a mapping schema, as lines at `indent` (used to fill a new list item or mapping). */
export function requiredFieldsSkeleton(schema: z.ZodType, indent: number, value?: unknown): string[] {
  const shape = objectShapeOf(schema, value);
  if (!shape) return [];
  const lines: string[] = [];
  for (const [key, child] of Object.entries(shape)) {
    if (isRequired(child)) lines.push(...fieldSkeleton(key, child, indent));
  }
  return lines;
}

interface ValueSkeleton {
  /** The value on the key's line. */
  inline?: string;
  /** Text after the colon when the value continues below (" |" for a block scalar). */
  header?: string;
  lines: string[];
}

function valueSkeleton(schema: z.ZodType, indent: number, depth: number): ValueSkeleton {
  const s = unwrap(schema);
  const def = defOf(s);
  const childIndent = indent + 2;
  const pad = ' '.repeat(childIndent);
  if (depth > 6) return { inline: '{}', lines: [] };
  switch (def.type) {
    case 'literal':
    case 'enum': {
      const first = literalValues(s)[0];
      return { inline: typeof first === 'string' ? first : JSON.stringify(first ?? null), lines: [] };
    }
    case 'boolean':
      return { inline: 'false', lines: [] };
    case 'number': {
      const n = s as z.ZodNumber;
      const dflt = defaultOf(schema)?.value;
      const value = typeof dflt === 'number' ? dflt : Number.isFinite(n.minValue) && n.minValue !== null && Math.abs(n.minValue) < 1e15 ? n.minValue : 0;
      return { inline: String(value), lines: [] };
    }
    case 'string': {
      const max = (s as z.ZodString).maxLength;
      const text = textPlaceholders.find((t) => s.safeParse(t).success) ?? 'TODO';
      // Long texts (instructions, scripts) read better as block scalars.
      if (max === null || max > 4096) return { header: ' |', lines: [`${pad}${text}`] };
      return { inline: text, lines: [] };
    }
    case 'array': {
      const element = def.element!;
      const el = unwrap(element);
      const elType = defOf(el).type;
      if (elType === 'object' || elType === 'union') {
        const fields = requiredFieldsSkeleton(el, childIndent + 2);
        if (fields.length === 0) return { inline: '[]', lines: [] };
        return { lines: [`${pad}- ${fields[0]!.trimStart()}`, ...fields.slice(1)] };
      }
      if (isRequiredNonEmpty(s)) {
        const item = valueSkeleton(element, childIndent, depth + 1);
        return { lines: [`${pad}- ${item.inline ?? ''}`] };
      }
      return { inline: '[]', lines: [] };
    }
    case 'object':
    case 'union': {
      const fields = requiredFieldsSkeleton(s, childIndent);
      if (fields.length === 0) return { inline: '{}', lines: [] };
      return { lines: fields };
    }
    case 'record':
      return { inline: '{}', lines: [] };
    default:
      return { inline: '', lines: [] };
  }
}

function isRequiredNonEmpty(array: z.ZodType): boolean {
  return !array.safeParse([]).success;
}

function objectShapeOf(schema: z.ZodType, value: unknown): Record<string, z.ZodType> | undefined {
  let s = unwrap(schema);
  if (defOf(s).type === 'union') {
    const option = pickUnionOption(s, value);
    if (!option) return undefined;
    s = unwrap(option);
  }
  const def = defOf(s);
  return def.type === 'object' ? def.shape : undefined;
}
