import { idSchema } from '../core/spec/common.js';

/** A spec id from a folder name or foreign id: lowercase, only [a-z0-9._-], starting with a letter or digit. */
export function idFromName(name: string, fallback: string): string {
  const id = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .replace(/-+$/, '')
    .slice(0, 128);
  return idSchema.safeParse(id).success ? id : fallback;
}
