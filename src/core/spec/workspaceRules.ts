import { specKindInfo, type SpecKind } from './kinds.js';
import type { ParsedSpec } from './parse.js';
import { formatPath, problemAt, type Problem } from './problems.js';
import type { RunConfig } from './run.js';

/** What the cross-file rules need to know about the file system; the caller supplies it, so core stays pure. */
export interface WorkspaceFiles {
  /** `relative` resolved against the folder of `fromFile`, in the same form as ParsedSpec.file. */
  resolve(fromFile: string, relative: string): string;
  exists(path: string): boolean;
  /** How to name another file inside a message (e.g. relative to the current folder); defaults to the path itself. */
  display?(path: string): string;
}

/**
 * Rules that look across files: a run config's population paths must exist and hold the right kind of spec, and
 * ids must be unique per kind across the workspace (the duplicate is reported on the later file's `id`).
 */
export function crossFileProblems(specs: readonly ParsedSpec[], files: WorkspaceFiles): Problem[] {
  const problems: Problem[] = [];
  const display = (p: string): string => files.display?.(p) ?? p;
  const kindByFile = new Map(specs.filter((s) => s.kind).map((s) => [s.file, s.kind!] as const));

  for (const parsed of specs) {
    if (parsed.kind !== 'Run' || !parsed.spec) continue;
    const run = parsed.spec as RunConfig;
    const lists: [key: 'environments' | 'users', want: SpecKind][] = [['environments', 'Environment'], ['users', 'User']];
    for (const [key, want] of lists) {
      run.population[key].forEach((rel, i) => {
        const path = ['population', key, i];
        const target = files.resolve(parsed.file, rel);
        if (!files.exists(target)) {
          problems.push(problemAt(parsed.file, parsed.locate(path), 'error', `${formatPath(path)}: "${rel}" does not exist (paths are relative to the folder of this run config)`, path));
          return;
        }
        const kind = kindByFile.get(target);
        if (kind && kind !== want) {
          problems.push(problemAt(parsed.file, parsed.locate(path), 'error', `${formatPath(path)}: "${rel}" is ${kind === 'Environment' || kind === 'Agent' ? 'an' : 'a'} ${kind} spec; population.${key} lists ${want} specs (*${specKindInfo[want].suffix})`, path));
        }
      });
    }
  }

  const firstById = new Map<string, ParsedSpec>();
  for (const parsed of [...specs].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0))) {
    if (!parsed.spec || !parsed.kind || parsed.kind === 'Run') continue;
    const id = (parsed.spec as { id: string }).id;
    const key = `${parsed.kind}\u0000${id}`;
    const first = firstById.get(key);
    if (!first) {
      firstById.set(key, parsed);
      continue;
    }
    const at = first.locate(['id']);
    problems.push(problemAt(parsed.file, parsed.locate(['id']), 'error',
      `duplicate ${parsed.kind} id "${id}": already used by ${display(first.file)}:${at.line}:${at.column}; give each ${parsed.kind} spec its own id`, ['id']));
  }
  return problems;
}
