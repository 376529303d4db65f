// What a curation command is about, from whatever invoked it: a Runs tree node (rollout → the rollout, pair → its
// environment), a Dataset view node, the rollout viewer's (runDir, rolloutId) or (runDir, {kind, id}), or the
// rollout JSON open in the editor. Pure, so every calling convention is unit-tested.
import { sep } from 'node:path';
import type { CurationTarget } from '../../store/curation.js';

export interface CurationSubject {
  runDir: string;
  target: CurationTarget;
}

export function curationSubject(arg: unknown, second?: unknown, activeFile?: string): CurationSubject | undefined {
  if (typeof arg === 'string') {
    if (typeof second === 'string' && second !== '') return { runDir: arg, target: { kind: 'rollout', id: second } };
    if (isTarget(second)) return { runDir: arg, target: { kind: second.kind, id: second.id } };
    return undefined;
  }
  if (arg && typeof arg === 'object') {
    const o = arg as Record<string, unknown>;
    // A Dataset view node carries its item.
    if (o.type === 'item' && o.item && typeof o.item === 'object') return curationSubject(o.item);
    const runDir = typeof o.runDir === 'string' ? o.runDir : undefined;
    if (runDir && isTarget(o.target)) return { runDir, target: { kind: o.target.kind, id: o.target.id } };
    if (runDir && o.kind === 'rollout' && typeof o.rolloutId === 'string') return { runDir, target: { kind: 'rollout', id: o.rolloutId } };
    if (runDir && o.kind === 'pair' && typeof o.envId === 'string') return { runDir, target: { kind: 'environment', id: o.envId } };
    if (runDir && typeof o.rolloutId === 'string') return { runDir, target: { kind: 'rollout', id: o.rolloutId } };
  }
  return activeFile ? fromRolloutFile(activeFile) : undefined;
}

/** `<runDir>/rollouts/g0003/<id>.json` or `<runDir>/environments/<id>.json` open in an editor. */
export function fromRolloutFile(file: string): CurationSubject | undefined {
  const parts = file.split(/[\\/]/);
  const name = parts[parts.length - 1] ?? '';
  if (!name.endsWith('.json')) return undefined;
  const id = name.slice(0, -'.json'.length);
  if (parts.length >= 4 && parts[parts.length - 3] === 'rollouts' && /^g\d{4}$/.test(parts[parts.length - 2]!)) {
    return { runDir: parts.slice(0, -3).join(sep), target: { kind: 'rollout', id } };
  }
  if (parts.length >= 3 && parts[parts.length - 2] === 'environments') {
    return { runDir: parts.slice(0, -2).join(sep), target: { kind: 'environment', id } };
  }
  return undefined;
}

function isTarget(v: unknown): v is CurationTarget {
  if (!v || typeof v !== 'object') return false;
  const t = v as Partial<CurationTarget>;
  return (t.kind === 'rollout' || t.kind === 'environment') && typeof t.id === 'string' && t.id !== '';
}
