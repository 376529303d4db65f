import type { Rng } from '../../ports/rng.js';
import { canonicalJsonOf } from './canonicalJson.js';

/**
 * A fresh id for a child: the parent's base id (without an earlier child suffix, so ids do not grow with depth),
 * the generation and a random tag from the run's stream.
 */
export function childId(parentId: string, generation: number, rng: Rng): string {
  const base = parentId.replace(/-g\d+-[0-9a-f]{6}$/, '').slice(0, 100);
  const tag = rng.int(0, 0xffffff).toString(16).padStart(6, '0');
  return `${base}-g${generation}-${tag}`;
}

/** Whether two specs are the same once identity and lineage are set aside. */
export function sameContent(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const strip = ({ id: _id, lineage: _lineage, ...rest }: Record<string, unknown>): Record<string, unknown> => rest;
  return canonicalJsonOf(strip(a)) === canonicalJsonOf(strip(b));
}

/** Overwrites the fields the caller owns on whatever object the model produced; other values are left to zod. */
export function withIdentity(json: unknown, fields: Record<string, unknown>): unknown {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return json;
  return { ...(json as Record<string, unknown>), ...fields };
}
