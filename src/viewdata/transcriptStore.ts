// The transcript index of a run kept on disk between sessions, so the first search after opening a run does not wait
// for every rollout file to be read again (10,000 files: seconds of work). It lives in a cache folder outside the run
// directory, never inside it: viewers are read-only (`coevolve view` never changes a run), a bundle or an export must
// not carry it, and nothing a run directory holds can choose where it is written. One file per run directory (named by
// a hash of its real path and run id), JSON lines: a header, then one line per rollout with the file identity it was
// read from. It is a cache, so it is read as untrusted input too: a line that is not what this writer writes is
// dropped, and a rollout whose summary or file changed since is read again.
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readSync, renameSync, rmSync, writeSync, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { RolloutRow } from '../webview/protocol.js';

const format = 1;
/** Far above a 10,000-rollout run's index (~25 MB), far below what would take the machine down. */
const maxBytes = 1024 * 1024 * 1024;
/** Cache files not written for this long belong to runs nobody opens any more. */
const staleMs = 30 * 24 * 3600 * 1000;

/** One rollout's searchable text as the index holds it (steps joined by NUL, lowercased). */
export interface StoredTranscript {
  id: string;
  generation: number;
  /** The row's summary this text was read for (a rollout played again has a new summary and a new file). */
  summary: string;
  /** The rollout file's identity when it was read: size, modification and change times, inode. */
  file: string;
  ids: number[];
  sources: string[];
  text: string;
}

/** What makes a row's summary this one: a rollout played again (resume after a damaged file) differs here. */
export function summaryKey(r: RolloutRow): string {
  return `${r.status}|${r.success}|${r.reward}|${r.steps}|${r.durationMs}|${r.tokens}|${r.costUsd}|${r.trial}|${r.hint}`;
}

/** A rollout file's identity: any rewrite changes its change time (which no user can set back) or its inode. */
export function fileKey(st: Stats): string {
  return `${st.size}|${st.mtimeMs}|${st.ctimeMs}|${st.ino}`;
}

/** The cache folder of transcript indexes: $COEVOLVE_CACHE_DIR, else $XDG_CACHE_HOME/coevolve, else ~/.cache/coevolve. */
export function defaultTranscriptCache(): string {
  const base = process.env['COEVOLVE_CACHE_DIR'] ?? join(process.env['XDG_CACHE_HOME'] || join(homedir(), '.cache'), 'coevolve');
  return join(base, 'transcripts');
}

const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
const isInts = (v: unknown): v is number[] => Array.isArray(v) && v.every((x) => Number.isInteger(x));

function checked(v: unknown): StoredTranscript | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as Record<string, unknown>;
  if (typeof o['id'] !== 'string' || !Number.isInteger(o['generation']) || typeof o['summary'] !== 'string' || typeof o['file'] !== 'string') return undefined;
  if (!isInts(o['ids']) || !isStrings(o['sources']) || typeof o['text'] !== 'string') return undefined;
  // One NUL between steps: as many texts as step ids and sources.
  let parts = 1;
  for (let i = o['text'].indexOf('\u0000'); i >= 0; i = o['text'].indexOf('\u0000', i + 1)) parts++;
  if (o['ids'].length !== o['sources'].length || (o['ids'].length === 0 ? o['text'] !== '' : parts !== o['ids'].length)) return undefined;
  return { id: o['id'], generation: o['generation'] as number, summary: o['summary'], file: o['file'], ids: o['ids'], sources: o['sources'], text: o['text'] };
}

/** Parses one stored line into `entries` (the last line of a rollout wins); 1 when the line was of no use. */
export function keepEntry(entries: Map<string, StoredTranscript>, line: string): number {
  let entry: StoredTranscript | undefined;
  try {
    entry = checked(JSON.parse(line));
  } catch {
    entry = undefined; // a torn last line (a viewer stopped mid-append), or damage
  }
  if (!entry) return 1;
  const dup = entries.has(entry.id) ? 1 : 0;
  entries.set(entry.id, entry);
  return dup;
}

/** Opens a file of the cache folder without following a link at its name, and checks it is a plain file of its own. */
function openPlain(path: string, flags: number): number | undefined {
  let fd: number;
  try {
    fd = openSync(path, flags | constants.O_NOFOLLOW);
  } catch {
    return undefined; // missing, or a link (ELOOP): not ours
  }
  const st = fstatSync(fd);
  // A hard link would make a write land in another file too.
  if (!st.isFile() || st.nlink !== 1) {
    closeSync(fd);
    return undefined;
  }
  return fd;
}

/**
 * The stored index of one run directory. `load` gives the entries of the file (the last line of each rollout wins:
 * two viewers of one run append the same rollouts); `append` adds lines; `rewrite` replaces the file through a new
 * one renamed into place, so a reader never sees half of it and a link planted at its name is replaced, not followed.
 */
export class TranscriptStore {
  readonly path: string;
  private readonly header: string;

  constructor(readonly folder: string, runDir: string, runId: string) {
    const name = createHash('sha256').update(`${runDir}\n${runId}`).digest('hex').slice(0, 40);
    this.path = join(folder, `${name}.jsonl`);
    this.header = JSON.stringify({ format, runDir, runId });
  }

  /** The stored entries, by rollout id, and how many lines were of no use (dropped, duplicated); none if no usable file. */
  load(): { entries: Map<string, StoredTranscript>; wasted: number } | undefined {
    const lines = this.lines();
    if (!lines) return undefined;
    const entries = new Map<string, StoredTranscript>();
    let wasted = 0;
    for (const line of lines) wasted += keepEntry(entries, line);
    return { entries, wasted };
  }

  /** The entry lines of the file (after its header), unparsed; undefined when there is no usable file. */
  lines(): string[] | undefined {
    const fd = openPlain(this.path, constants.O_RDONLY);
    if (fd === undefined) return undefined;
    let text: string;
    try {
      const size = fstatSync(fd).size;
      if (size > maxBytes) return undefined;
      const buf = Buffer.allocUnsafe(size);
      let at = 0;
      while (at < size) {
        const n = readSync(fd, buf, at, size - at, at);
        if (n <= 0) break;
        at += n;
      }
      text = buf.subarray(0, at).toString('utf8');
    } finally {
      closeSync(fd);
    }
    const lines = text.split('\n');
    if (lines[0] !== this.header) return undefined; // another format, or a hash collision: not this run's
    return lines.slice(1).filter((l) => l !== '');
  }

  /** Adds entries at the end of the file (one write); starts the file when there is none. */
  append(entries: readonly StoredTranscript[]): void {
    if (entries.length === 0) return;
    const fd = openPlain(this.path, constants.O_WRONLY | constants.O_APPEND);
    if (fd === undefined) {
      this.rewrite(entries);
      return;
    }
    try {
      writeSync(fd, entries.map((e) => JSON.stringify(e)).join('\n') + '\n');
    } finally {
      closeSync(fd);
    }
  }

  /** Replaces the file with these entries: written to a new file (O_EXCL, no link followed), then renamed over it. */
  rewrite(entries: readonly StoredTranscript[]): void {
    this.ensureFolder();
    const tmp = `${this.path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      writeSync(fd, [this.header, ...entries.map((e) => JSON.stringify(e))].join('\n') + '\n');
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.path);
  }

  /** The cache folder, made private to this user; a link at its place is refused (never written through). */
  private ensureFolder(): void {
    mkdirSync(this.folder, { recursive: true, mode: 0o700 });
    if (!lstatSync(this.folder).isDirectory()) throw new Error(`${this.folder}: the transcript cache is not a directory`);
    prune(this.folder);
  }
}

const pruned = new Set<string>();

/** Removes cache files nobody wrote for a month (once per folder and process). */
function prune(folder: string): void {
  if (pruned.has(folder)) return;
  pruned.add(folder);
  try {
    for (const name of readdirSync(folder)) {
      if (!/^[0-9a-f]{40}\.jsonl$/.test(name) && !/\.tmp$/.test(name)) continue;
      const path = join(folder, name);
      const st = lstatSync(path, { throwIfNoEntry: false });
      if (st?.isFile() && Date.now() - st.mtimeMs > staleMs) rmSync(path, { force: true });
    }
  } catch {
    // a cache: pruning is best effort
  }
}
