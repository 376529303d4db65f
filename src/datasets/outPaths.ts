// Paths of an exported dataset folder come from the run directory (environment ids, file paths of a spec a
// designer model may have written). The spec schema only keeps them relative and free of "..": "./test.sh" and
// "x//y" pass it, and would name a file the export writes itself (the exported task's trust-rule wrapper) or make
// two files one. An export writes a path only in its one canonical spelling, and each path once.

/** Why `rel` is not a canonical relative path of an export, or undefined when it is. */
export function outputPathProblem(rel: string): string | undefined {
  if (rel.length === 0 || rel.length > 1024) return 'is empty or longer than 1024 characters';
  if (rel.includes('\0') || rel.includes('\\')) return 'holds a NUL or a backslash';
  if (rel.startsWith('/')) return 'is absolute';
  const parts = rel.split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..')) return 'is not canonical (an empty, "." or ".." part)';
  return undefined;
}

/**
 * Why the files of one exported folder cannot be written as given, or undefined: a path that is not canonical,
 * a path named twice, or a file that another path needs as a folder.
 */
export function folderPathsProblem(paths: readonly string[]): string | undefined {
  const files = new Set<string>();
  for (const p of paths) {
    const why = outputPathProblem(p);
    if (why) return `file path ${JSON.stringify(p.slice(0, 120))} ${why}`;
    if (files.has(p)) return `file path ${JSON.stringify(p.slice(0, 120))} is named twice`;
    files.add(p);
  }
  for (const p of files) {
    const parts = p.split('/');
    for (let i = 1; i < parts.length; i++) {
      const folder = parts.slice(0, i).join('/');
      if (files.has(folder)) return `file path ${JSON.stringify(folder.slice(0, 120))} is also the folder of ${JSON.stringify(p.slice(0, 120))}`;
    }
  }
  return undefined;
}
