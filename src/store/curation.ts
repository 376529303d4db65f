import { existsSync } from 'node:fs';
import { JsonlAppender } from './durableFile.js';
import { runLayout } from './layout.js';
import { readRunText, runFileLimits } from './runFiles.js';
import { isSafeId } from './runPaths.js';

/**
 * Curation decisions on a run, kept in `<runDir>/curation.jsonl` (append-only, one decision per line). Nothing is
 * ever rewritten: the current state of a target is the fold of its lines, so the history of who decided what stays.
 */
export const curationTargetKinds = ['rollout', 'environment'] as const;
export type CurationTargetKind = (typeof curationTargetKinds)[number];

export const curationActions = ['accept', 'reject', 'clear', 'label', 'unlabel', 'comment'] as const;
export type CurationAction = (typeof curationActions)[number];

export interface CurationTarget {
  kind: CurationTargetKind;
  id: string;
}

/** One line of curation.jsonl. */
export interface CurationEntry {
  at: string;
  target: CurationTarget;
  action: CurationAction;
  /** label / unlabel */
  label?: string;
  /** comment text, or an optional note on accept / reject */
  text?: string;
  author?: string;
}

export type CurationVerdict = 'accepted' | 'rejected';

export interface CurationComment {
  at: string;
  text: string;
  author?: string;
}

/** The folded state of one target. */
export interface CurationState {
  target: CurationTarget;
  verdict?: CurationVerdict;
  /** Why it was accepted or rejected, when a note was given. */
  verdictNote?: string;
  labels: string[];
  comments: CurationComment[];
  updatedAt: string;
}

export interface CurationRead {
  entries: CurationEntry[];
  /** Folded state per target, keyed by `curationKey(target)`. */
  states: Map<string, CurationState>;
  /** Bytes after the last newline: a write torn by a crash, ignored. */
  tornTailBytes: number;
  /** Complete lines that are not a valid entry; reported, skipped. */
  badLines: { line: number; error: string }[];
}

export const curationFile = (runDir: string): string => runLayout.curation(runDir);

export function curationKey(target: CurationTarget): string {
  return `${target.kind}:${target.id}`;
}

/** Reads and folds curation.jsonl; a missing file is an empty curation. */
export function readCuration(runDir: string): CurationRead {
  const path = curationFile(runDir);
  if (!existsSync(path)) return { entries: [], states: new Map(), tornTailBytes: 0, badLines: [] };
  return parseCuration(readRunText(runDir, 'curation.jsonl', runFileLimits.curation));
}

export function parseCuration(text: string): CurationRead {
  const lastNewline = text.lastIndexOf('\n');
  const tornTailBytes = Buffer.byteLength(text.slice(lastNewline + 1));
  const entries: CurationEntry[] = [];
  const badLines: CurationRead['badLines'] = [];
  const lines = text.slice(0, lastNewline + 1).split('\n');
  lines.forEach((line, i) => {
    if (line.trim().length === 0) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      badLines.push({ line: i + 1, error: err instanceof Error ? err.message : String(err) });
      return;
    }
    const problem = entryProblem(value);
    if (problem) badLines.push({ line: i + 1, error: problem });
    else entries.push(value as CurationEntry);
  });
  return { entries, states: foldCuration(entries), tornTailBytes, badLines };
}

export function foldCuration(entries: readonly CurationEntry[]): Map<string, CurationState> {
  const states = new Map<string, CurationState>();
  for (const e of entries) {
    const key = curationKey(e.target);
    let s = states.get(key);
    if (!s) {
      s = { target: { kind: e.target.kind, id: e.target.id }, labels: [], comments: [], updatedAt: e.at };
      states.set(key, s);
    }
    s.updatedAt = e.at;
    switch (e.action) {
      case 'accept':
      case 'reject':
        s.verdict = e.action === 'accept' ? 'accepted' : 'rejected';
        if (e.text) s.verdictNote = e.text;
        else delete s.verdictNote;
        break;
      case 'clear':
        delete s.verdict;
        delete s.verdictNote;
        break;
      case 'label':
        if (e.label && !s.labels.includes(e.label)) s.labels.push(e.label);
        break;
      case 'unlabel':
        s.labels = s.labels.filter((l) => l !== e.label);
        break;
      case 'comment':
        if (e.text) s.comments.push(e.author ? { at: e.at, text: e.text, author: e.author } : { at: e.at, text: e.text });
        break;
    }
  }
  return states;
}

/** Checks an entry before it is written, so the log only ever holds lines the reader accepts. */
export function entryProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return 'not a JSON object';
  const e = value as Partial<CurationEntry>;
  if (typeof e.at !== 'string') return '"at" must be an ISO timestamp string';
  if (!e.target || typeof e.target.id !== 'string' || e.target.id.length === 0) return '"target.id" must be a non-empty string';
  // Viewers open the rollout or environment a decision names: its id must be one a run could have written.
  if (!isSafeId(e.target.id)) return `"target.id" ${JSON.stringify(String(e.target.id).slice(0, 80))} is not a rollout or environment id`;
  if (!curationTargetKinds.includes(e.target.kind as CurationTargetKind)) return `"target.kind" must be one of ${curationTargetKinds.join(', ')}`;
  if (!curationActions.includes(e.action as CurationAction)) return `"action" must be one of ${curationActions.join(', ')}`;
  if ((e.action === 'label' || e.action === 'unlabel') && (typeof e.label !== 'string' || e.label.trim().length === 0)) return `${e.action} needs a non-empty "label"`;
  if (e.action === 'comment' && (typeof e.text !== 'string' || e.text.trim().length === 0)) return 'comment needs a non-empty "text"';
  return undefined;
}

/**
 * Appends decisions durably (one write + fsync per line). A torn tail left by a crash is cut back to the last
 * complete line first, so a half-written line never becomes the prefix of a new one.
 */
export async function appendCuration(runDir: string, entries: readonly CurationEntry[]): Promise<void> {
  for (const e of entries) {
    const problem = entryProblem(e);
    if (problem) throw new Error(`curation entry for ${e.target?.kind ?? '?'} ${e.target?.id ?? '?'} is invalid: ${problem}`);
  }
  const log = new JsonlAppender(curationFile(runDir));
  try {
    for (const e of entries) await log.append(e);
  } finally {
    log.close();
  }
}
