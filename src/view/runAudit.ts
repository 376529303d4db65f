import { lstatSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Why a run directory must not be served or bundled, or undefined when it may: a symbolic link or anything other
 * than a directory or a regular file inside it. The engine writes only plain files there, so a link means the
 * directory came from somewhere that planted one, and reading through it could publish a file from outside the run.
 */
export function auditRunDir(dir: string, maxEntries = 1_000_000): string | undefined {
  const stack = [dir];
  let seen = 0;
  while (stack.length > 0) {
    const current = stack.pop() as string;
    // Entry types from the directory itself (d_type: the entry's own type, a link is a link), not one lstat per
    // file; where the file system reports no type, Node lstats that entry. Either way nothing is followed.
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const path = join(current, entry.name);
      if (++seen > maxEntries) return `more than ${maxEntries} entries`;
      if (entry.isSymbolicLink()) return `${relative(dir, path)} is a symbolic link (coevolve view follows no link out of a run directory)`;
      if (entry.isDirectory()) stack.push(path);
      else if (!entry.isFile()) return `${relative(dir, path)} is not a regular file`;
    }
  }
  return undefined;
}

/** A file of an audited run read later (a live run writes new ones): it must still be a regular file, not a link. */
export function isPlainFile(path: string): boolean {
  try {
    const st = lstatSync(path);
    return st.isFile();
  } catch {
    return false;
  }
}
