// The one check of a run config's `population.builtinFamilies` against the built-in registry, used by
// `coevolve validate`, the editor's live diagnostics and `coevolve run`, so the three never disagree.
import { closest } from 'fastest-levenshtein';
import { builtinFamilies } from '../builtin/families/registry.js';
import type { ParsedSpec } from '../core/spec/parse.js';
import { problemAt, type Problem } from '../core/spec/problems.js';
import type { RunConfig } from '../core/spec/run.js';

const names = (): string[] => builtinFamilies.map((f) => f.name);

/** Why a family name is not a built-in family (with the nearest name), or undefined when it is one. */
export function unknownFamilyMessage(name: string): string | undefined {
  if (names().includes(name)) return undefined;
  const near = closest(name, names());
  return `unknown built-in family "${name}"${near ? `; did you mean "${near}"?` : ''} (available: ${names().join(', ')})`;
}

/** A problem on every `population.builtinFamilies` entry of a run config that names no built-in family. */
export function builtinFamilyProblems(specs: readonly ParsedSpec[]): Problem[] {
  const out: Problem[] = [];
  for (const parsed of specs) {
    if (parsed.kind !== 'Run' || !parsed.spec) continue;
    (parsed.spec as RunConfig).population.builtinFamilies.forEach((name, i) => {
      const message = unknownFamilyMessage(name);
      const path = ['population', 'builtinFamilies', i];
      if (message) out.push(problemAt(parsed.file, parsed.locate(path), 'error', `population.builtinFamilies[${i}]: ${message}`, path));
    });
  }
  return out;
}
