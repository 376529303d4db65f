// The one way to turn an id or a generation number from a record, a message or a URL into a path inside a run
// directory. Anything that is not a safe name is refused (RunPathError), never rewritten: rewriting "a/b" to "a_b"
// would silently name another record. The writer, the readers and the `coevolve view` server all go through here.
import { join } from 'node:path';

/** Ids that can be file names: a letter or digit first, then letters, digits, ".", "_", "-" (no "/", no ".."). */
export const safeIdPattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;
export const maxGeneration = 99_999;

export class RunPathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RunPathError';
  }
}

const shown = (v: unknown): string => (typeof v === 'string' ? JSON.stringify(v.slice(0, 80)) : String(v));

export function isSafeId(id: unknown): id is string {
  return typeof id === 'string' && safeIdPattern.test(id);
}

export function isSafeGeneration(g: unknown): g is number {
  return typeof g === 'number' && Number.isInteger(g) && g >= 0 && g <= maxGeneration;
}

export function checkRecordId(id: unknown, what: string): string {
  if (!isSafeId(id)) throw new RunPathError(`${what} id ${shown(id)} is not a safe name (letters, digits, ".", "_", "-", starting with a letter or digit)`);
  return id;
}

export function checkGeneration(g: unknown): number {
  if (!isSafeGeneration(g)) throw new RunPathError(`generation ${shown(g)} is not a whole number from 0 to ${maxGeneration}`);
  return g;
}

/** A path under artifacts/: relative, "/"-separated, no "..", each part a safe name. */
export function checkArtifactPath(rel: unknown): string {
  if (typeof rel !== 'string' || rel.length === 0 || rel.length > 512 || !rel.split('/').every((part) => isSafeId(part))) {
    throw new RunPathError(`artifact path ${shown(rel)} is not a relative path of safe names`);
  }
  return rel;
}

/** g0003: the folder and file stem of a generation. */
export function generationFolder(generation: number): string {
  return `g${String(checkGeneration(generation)).padStart(4, '0')}`;
}

/** Parses "g0003" back; undefined for any other name. */
export function generationOfFolder(name: string): number | undefined {
  const m = /^g(\d{4,5})$/.exec(name);
  if (!m) return undefined;
  const g = Number(m[1]);
  return generationFolder(g) === name ? g : undefined;
}

export type RunRecordRef =
  | { kind: 'manifest' | 'events' | 'curation' | 'lock' }
  | { kind: 'rollout'; generation: number; id: string }
  /** The token sidecar next to a rollout file (.jsonl, so globs for *.json rollouts never pick it up). */
  | { kind: 'rolloutTokens'; generation: number; id: string }
  | { kind: 'generation'; generation: number }
  | { kind: 'environment' | 'user' | 'agent'; id: string }
  | { kind: 'artifact'; path: string };

/** Where a record of the run lives, relative to the run directory, with "/" separators. */
export function runRecordRelPath(ref: RunRecordRef): string {
  switch (ref.kind) {
    case 'manifest': return 'manifest.json';
    case 'events': return 'events.jsonl';
    case 'curation': return 'curation.jsonl';
    case 'lock': return 'lock';
    case 'rollout': return `rollouts/${generationFolder(ref.generation)}/${checkRecordId(ref.id, 'rollout')}.json`;
    case 'rolloutTokens': return `rollouts/${generationFolder(ref.generation)}/${checkRecordId(ref.id, 'rollout')}.tokens.jsonl`;
    case 'generation': return `generations/${generationFolder(ref.generation)}.json`;
    case 'environment': return `environments/${checkRecordId(ref.id, 'environment')}.json`;
    case 'user': return `users/${checkRecordId(ref.id, 'user')}.json`;
    case 'agent': return `agents/${checkRecordId(ref.id, 'agent')}.json`;
    case 'artifact': return `artifacts/${checkArtifactPath(ref.path)}`;
    default: throw new RunPathError(`unknown record kind ${shown((ref as { kind: unknown }).kind)}`);
  }
}

/**
 * The path of record X of run R, validated: throws RunPathError for a crafted id, generation or artifact path.
 * It says nothing about links inside the run directory: read through readRunFile (runFiles.ts), which refuses
 * a link that leads outside it.
 */
export function runRecordPath(runDir: string, ref: RunRecordRef): string {
  return join(runDir, ...runRecordRelPath(ref).split('/'));
}
