import { diffLines } from 'diff';
import { stringify } from 'yaml';
import type { EnvironmentSpec } from '../core/spec/environment.js';
import type { UserProfile } from '../core/spec/user.js';
import type { RunIndex } from '../store/runReader.js';
import { readEnvironment, readUser } from '../store/runReader.js';
import { environmentName, userName } from '../webview/names.js';
import type { SpecView } from '../webview/protocol.js';

const toYaml = (spec: unknown): string => stringify(spec, { lineWidth: 0 });

type Spec = EnvironmentSpec | UserProfile;

const knobsOf = (kind: SpecView['kind'], s: Spec): Record<string, number | string> =>
  kind === 'environment' ? { ...(s as EnvironmentSpec).knobs } : Object.fromEntries(Object.entries((s as UserProfile).behavior).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') || 'none' : v]));

/** The knobs that differ between a parent and a child, in the child's order. */
export function knobChanges(kind: SpecView['kind'], parent: Spec, child: Spec): NonNullable<SpecView['knobChanges']> {
  const a = knobsOf(kind, parent);
  const b = knobsOf(kind, child);
  const names = [...new Set([...Object.keys(b), ...Object.keys(a)])];
  return names.filter((k) => a[k] !== b[k]).map((k) => ({ knob: k, from: a[k] ?? null, to: b[k] ?? null }));
}

/** Fields (two levels deep, e.g. `sandbox.files`) whose YAML differs, with line counts; lineage and ids left out. */
export function fieldChanges(parent: Spec, child: Spec): NonNullable<SpecView['fieldChanges']> {
  const out: NonNullable<SpecView['fieldChanges']> = [];
  const skip = new Set(['lineage', 'id', 'provenance']);
  const visit = (a: unknown, b: unknown, path: string[]): void => {
    const objects = a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b);
    if (objects && path.length < 2) {
      const keys = [...new Set([...Object.keys(b as object), ...Object.keys(a as object)])];
      for (const k of keys) if (!(path.length === 0 && skip.has(k))) visit((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], [...path, k]);
      return;
    }
    if (JSON.stringify(a) === JSON.stringify(b)) return;
    let added = 0;
    let removed = 0;
    for (const c of diffLines(a === undefined ? '' : toYaml(a), b === undefined ? '' : toYaml(b))) {
      if (c.added) added += c.count ?? 0;
      if (c.removed) removed += c.count ?? 0;
    }
    out.push({ field: path.join('.'), added, removed });
  };
  visit(parent, child, []);
  return out;
}

/**
 * A spec version as stored in the run, as YAML, with what changed against its parent version when the parent is in
 * the run too: the knobs that moved, the fields that changed, and the line diff. Reading failures become a
 * `problem` the viewer shows, not an exception.
 */
export function specView(run: RunIndex, kind: 'environment' | 'user', id: string): SpecView {
  const read = kind === 'environment' ? readEnvironment : readUser;
  const entry = run.specs.get(id);
  let spec: Spec;
  try {
    spec = read(run.dir, id);
  } catch (err) {
    return { kind, id, text: '', parent: entry?.parent ?? null, operator: entry?.operator ?? null, generation: entry?.generation ?? 0, diff: null, problem: err instanceof Error ? err.message : String(err) };
  }
  const text = toYaml(spec);
  const parentId = spec.lineage.parent;
  const view: SpecView = {
    kind, id, text, parent: parentId, operator: spec.lineage.operator, generation: spec.lineage.generation, diff: null,
    name: kind === 'environment' ? environmentName(spec as EnvironmentSpec, id) : userName(spec as UserProfile, id),
  };
  if (kind === 'environment') view.difficulty = { value: (spec as EnvironmentSpec).difficulty };
  if (parentId) {
    let parent: Spec | undefined;
    try {
      parent = read(run.dir, parentId);
    } catch {
      parent = undefined; // the parent came from outside this run (a workspace spec): nothing stored to diff against
    }
    if (parent) {
      view.diff = diffLines(toYaml(parent), text).map((c) => ({ value: c.value, ...(c.added ? { added: true } : {}), ...(c.removed ? { removed: true } : {}) }));
      view.knobChanges = knobChanges(kind, parent, spec);
      view.fieldChanges = fieldChanges(parent, spec);
      if (view.difficulty) view.difficulty.parent = (parent as EnvironmentSpec).difficulty;
    }
  }
  return view;
}
