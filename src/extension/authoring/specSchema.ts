// Schema lookups the editor features share (completion, hover, skeletons): which schema governs a file, what a field
// requires, its default. Pure: no vscode import, so it is unit-tested directly.
import { parseDocument } from 'yaml';
import type { z } from 'zod';
import { standardKnobs, type KnobName } from '../../builtin/families/family.js';
import { isSpecKind, kindFromFileName, specKindInfo, type SpecKind } from '../../core/spec/kinds.js';
import type { SpecPath } from '../../core/spec/problems.js';
import { defOf, unwrap } from '../../core/spec/schemaAt.js';

/** The kind of a spec file: its name's suffix, else its `kind:` line. */
export function specKindOf(file: string, text: string): SpecKind | undefined {
  const fromName = kindFromFileName(file);
  if (fromName) return fromName;
  const m = /^kind:\s*["']?([A-Za-z]+)/m.exec(text);
  return m && isSpecKind(m[1]) ? m[1] : undefined;
}

export function rootSchema(kind: SpecKind): z.ZodType {
  return specKindInfo[kind].schema;
}

/**
 * The document's values as far as they parse: broken YAML still gives the values of the parts that read, which is
 * what discriminated unions (`roles.agent.kind`) need to pick the right fields.
 */
export function looseInput(text: string): unknown {
  // Hover and completion ask again and again about the same text; one remembered parse covers them.
  if (lastInput?.text === text) return lastInput.value;
  let value: unknown;
  try {
    value = parseDocument(text, { prettyErrors: false, uniqueKeys: false }).toJS({ maxAliasCount: 100 }) as unknown;
  } catch {
    value = undefined;
  }
  lastInput = { text, value };
  return value;
}

let lastInput: { text: string; value: unknown } | undefined;

/** A field is required when leaving it out fails: no default, not optional. */
export function isRequired(schema: z.ZodType): boolean {
  return !schema.safeParse(undefined).success;
}

/** The default a field takes when left out, if it has one. */
export function defaultOf(schema: z.ZodType): { value: unknown } | undefined {
  let s: z.ZodType | undefined = schema;
  for (let i = 0; s && i < 20; i++) {
    const def = defOf(s) as ReturnType<typeof defOf> & { defaultValue?: unknown };
    if (def.type === 'default' || def.type === 'prefault') return { value: def.defaultValue };
    if (def.type === 'optional' || def.type === 'nullable') s = def.innerType;
    else break;
  }
  return undefined;
}

/** The type name of what a schema holds, once wrappers are removed. */
export function typeOf(schema: z.ZodType): string {
  return defOf(unwrap(schema)).type;
}

/** A default written the way it reads in YAML; long or nested defaults are summarised. */
export function showDefault(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (value === null) return 'null';
  if (typeof value === 'string') return value === '' ? '""' : value.length > 40 ? undefined : value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.length === 0 ? '[]' : undefined;
  if (typeof value === 'object') return Object.keys(value).length === 0 ? '{}' : undefined;
  return undefined;
}

/** The built-in families' knob, when `path` is a key under an environment's `knobs`. */
export function knobAt(kind: SpecKind, path: SpecPath): { name: KnobName; min: number; max: number; description: string } | undefined {
  if (kind !== 'Environment' || path.length !== 2 || path[0] !== 'knobs') return undefined;
  const name = String(path[1]);
  const def = (standardKnobs as Record<string, (typeof standardKnobs)[KnobName] | undefined>)[name];
  return def ? { name: name as KnobName, min: def.min, max: def.max, description: def.description } : undefined;
}
