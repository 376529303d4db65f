import { createHash } from 'node:crypto';

/**
 * Duplicate detection across an export. Content is normalised first so that copies differing only in ids,
 * timestamps (callers leave those out), whitespace or letter case count as the same item.
 */
export function normaliseText(text: string): string {
  return text.replace(/\s+/g, ' ').trim().toLowerCase();
}

/**
 * sha256 of the JSON form with whitespace (including escaped newlines and tabs) collapsed, spaces next to quotes
 * dropped, and letters lower-cased. One pass over one string: walking the object string by string cost more than
 * the rest of a 10,000-rollout export. Keys keep their order, which callers build in a fixed order.
 */
export function contentHash(value: unknown): string {
  const json = JSON.stringify(value) ?? 'null';
  const normalised = json.replace(/(?:\s|\\[nrt])+/g, ' ').replace(/ ?" ?/g, '"').toLowerCase();
  return createHash('sha256').update(normalised).digest('hex');
}
