import type { z } from 'zod';
import type { SpecPath } from './problems.js';

/** The parts of zod 4's internal definition this module reads; zod does not export one type covering them all. */
interface LooseDef {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  keyType?: z.ZodType;
  valueType?: z.ZodType;
  options?: z.ZodType[];
  discriminator?: string;
  entries?: Record<string, string | number>;
  values?: unknown[];
  getter?: () => z.ZodType;
}

export function defOf(schema: z.ZodType): LooseDef {
  return (schema as unknown as { _zod: { def: LooseDef } })._zod.def;
}

/** Strips wrappers that do not change what a value must look like (default, optional, nullable, pipe input...). */
export function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (let i = 0; i < 20; i++) {
    const def = defOf(s);
    if (def.innerType && ['default', 'prefault', 'optional', 'nullable', 'readonly', 'catch', 'nonoptional'].includes(def.type)) s = def.innerType;
    else if (def.type === 'pipe' && def.in) s = def.in;
    else if (def.type === 'lazy' && def.getter) s = def.getter();
    else break;
  }
  return s;
}

/** The first description found on a schema or the wrappers around it. */
export function descriptionOf(schema: z.ZodType): string | undefined {
  let s: z.ZodType | undefined = schema;
  for (let i = 0; s && i < 20; i++) {
    if (s.description) return s.description;
    const def = defOf(s);
    s = def.innerType ?? (def.type === 'pipe' ? def.in : undefined);
  }
  return undefined;
}

/**
 * The schema that governs the value at `path`, following the input for discriminated unions. Undefined when the
 * path leaves the schema (e.g. under an unknown key).
 */
export function schemaAt(root: z.ZodType, path: SpecPath, input: unknown): z.ZodType | undefined {
  let schema: z.ZodType | undefined = root;
  let value: unknown = input;
  for (const seg of path) {
    if (!schema) return undefined;
    schema = childSchema(unwrap(schema), seg, value);
    value = isRecord(value) || Array.isArray(value) ? (value as Record<string, unknown>)[String(seg)] : undefined;
  }
  return schema;
}

function childSchema(schema: z.ZodType, seg: string | number, value: unknown): z.ZodType | undefined {
  const def = defOf(schema);
  switch (def.type) {
    case 'object':
      return def.shape?.[String(seg)];
    case 'array':
      return def.element;
    case 'record':
      return def.valueType;
    case 'union': {
      const option = pickUnionOption(schema, value);
      return option ? childSchema(unwrap(option), seg, value) : undefined;
    }
    default:
      return undefined;
  }
}

/** For a discriminated union, the option the input's discriminator selects; for a plain union, the first object option. */
export function pickUnionOption(schema: z.ZodType, value: unknown): z.ZodType | undefined {
  const def = defOf(schema);
  const options = def.options ?? [];
  if (def.discriminator && isRecord(value)) {
    const tag = value[def.discriminator];
    const match = options.find((o) => literalValues(objectShape(o)?.[def.discriminator!]).includes(tag));
    if (match) return match;
  }
  return options.find((o) => defOf(unwrap(o)).type === 'object');
}

/** Keys an object schema accepts (for "did you mean" on unknown keys). */
export function objectKeys(schema: z.ZodType | undefined, value: unknown): string[] {
  if (!schema) return [];
  const s = unwrap(schema);
  const def = defOf(s);
  if (def.type === 'union') return objectKeys(pickUnionOption(s, value), value);
  return Object.keys(objectShape(s) ?? {});
}

function objectShape(schema: z.ZodType | undefined): Record<string, z.ZodType> | undefined {
  if (!schema) return undefined;
  const def = defOf(unwrap(schema));
  return def.type === 'object' ? def.shape : undefined;
}

export function literalValues(schema: z.ZodType | undefined): unknown[] {
  if (!schema) return [];
  const def = defOf(unwrap(schema));
  if (def.type === 'literal') return def.values ?? [];
  if (def.type === 'enum') return Object.values(def.entries ?? {});
  return [];
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The plain value at `path` in parsed input, or undefined when the path does not exist. */
export function valueAt(input: unknown, path: SpecPath): unknown {
  let v = input;
  for (const seg of path) {
    if (!isRecord(v) && !Array.isArray(v)) return undefined;
    v = (v as Record<string, unknown>)[String(seg)];
  }
  return v;
}

/** True when `path` names a key its parent mapping does not have (as opposed to a key with an empty value). */
export function isAbsent(input: unknown, path: SpecPath): boolean {
  if (path.length === 0) return input === undefined;
  const parent = valueAt(input, path.slice(0, -1));
  return isRecord(parent) && !Object.prototype.hasOwnProperty.call(parent, String(path[path.length - 1]));
}
