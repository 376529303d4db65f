import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Every regular file (and link) under dir, as sorted paths relative to it. */
export function listTree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(relative(dir, p));
    }
  };
  walk(dir);
  return out.sort();
}
