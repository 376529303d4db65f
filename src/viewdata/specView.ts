import { diffLines } from 'diff';
import { stringify } from 'yaml';
import type { RunIndex } from '../store/runReader.js';
import { readEnvironment, readUser } from '../store/runReader.js';
import type { SpecView } from '../webview/protocol.js';

const toYaml = (spec: unknown): string => stringify(spec, { lineWidth: 0 });

/**
 * A spec version as stored in the run, as YAML, with a line diff against its parent version when the parent is in
 * the run too. Reading failures become a `problem` the viewer shows, not an exception.
 */
export function specView(run: RunIndex, kind: 'environment' | 'user', id: string): SpecView {
  const read = kind === 'environment' ? readEnvironment : readUser;
  const entry = run.specs.get(id);
  let spec: { lineage: { parent: string | null; operator: string | null; generation: number } };
  try {
    spec = read(run.dir, id);
  } catch (err) {
    return { kind, id, text: '', parent: entry?.parent ?? null, operator: entry?.operator ?? null, generation: entry?.generation ?? 0, diff: null, problem: err instanceof Error ? err.message : String(err) };
  }
  const text = toYaml(spec);
  const parent = spec.lineage.parent;
  let diff: SpecView['diff'] = null;
  if (parent) {
    try {
      diff = diffLines(toYaml(read(run.dir, parent)), text).map((c) => ({ value: c.value, ...(c.added ? { added: true } : {}), ...(c.removed ? { removed: true } : {}) }));
    } catch {
      diff = null; // the parent came from outside this run (a workspace spec): nothing stored to diff against
    }
  }
  return { kind, id, text, parent, operator: spec.lineage.operator, generation: spec.lineage.generation, diff };
}
