import { createHash } from 'node:crypto';

/**
 * Duplicate detection across an export. Content is normalised first so that copies differing only in ids,
 * timestamps, whitespace or letter case count as the same item.
 */
export function normaliseText(text: string): string {
  // No Unicode normalisation: it costs more than the rest of the hash and the engine never varies it.
  return text.replace(/\s+/g, ' ').trim().toLowerCase();
}

/** sha256 over a canonical JSON form (sorted keys, normalised strings). */
export function contentHash(value: unknown): string {
  return createHash('sha256').update(canonical(value)).digest('hex');
}

function canonical(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(normaliseText(value));
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const obj = value as Record<string, unknown>;
  return `{${Object.keys(obj).filter((k) => obj[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${canonical(obj[k])}`).join(',')}}`;
}
