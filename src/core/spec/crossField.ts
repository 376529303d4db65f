import type { z } from 'zod';
import type { SpecPath } from './problems.js';

/**
 * Cross-field rules run even when other fields have errors (zod skips refinements after an issue unless told
 * otherwise), so a person sees a dangling reference in the same pass as a typo elsewhere. The rules therefore read
 * a value that may be only partly valid, through the guards below.
 */
export const evenWithOtherErrors = { when: (): boolean => true };

/** `value[key]` when value is a mapping, else undefined. */
export function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
}

export function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** Reports every repeat of `items[i][key]` on its node; returns the set of values seen. */
export function checkUnique(items: unknown[], key: string, at: SpecPath, what: string, ctx: z.RefinementCtx): Set<string> {
  const seen = new Set<string>();
  items.forEach((item, i) => {
    const raw = field(item, key);
    if (typeof raw !== 'string') return;
    const value = key === 'path' ? raw.replace(/^\.\//, '') : raw;
    if (seen.has(value)) ctx.addIssue({ code: 'custom', message: `duplicate ${what} "${raw}"`, path: [...at, i, key] });
    seen.add(value);
  });
  return seen;
}

/** Reports every string in `refs` that is not in `known`, on its node. */
export function checkReferences(refs: unknown[], known: Set<string>, at: SpecPath, message: (id: string) => string, ctx: z.RefinementCtx): void {
  refs.forEach((id, i) => {
    if (typeof id === 'string' && !known.has(id)) ctx.addIssue({ code: 'custom', message: message(id), path: [...at, i] });
  });
}
