// Reading one file of a run directory as untrusted input: the run directory is the boundary (a link that leads
// out of it is refused), reads are bounded and regular-file only, and every fault names the file relative to the
// run directory. A run directory may come from anywhere (a colleague, a download), not only from our writer.
import { existsSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { FolderReadError, SafeFolder } from '../files/safeFolder.js';

/** Byte caps per record kind: far above what a run writes, far below what would take the machine down. */
export const runFileLimits = {
  manifest: 16 * 1024 * 1024,
  events: 512 * 1024 * 1024,
  curation: 256 * 1024 * 1024,
  rollout: 512 * 1024 * 1024,
  spec: 64 * 1024 * 1024,
  metrics: 64 * 1024 * 1024,
  snapshot: 256 * 1024 * 1024,
} as const;

export class RunFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RunFormatError';
  }
}

/** A file of a run that could not be used; `rel` is relative to the run directory. */
export class RunFileError extends RunFormatError {
  constructor(readonly runDir: string, readonly rel: string, readonly reason: string) {
    super(`${join(runDir, rel)}: ${reason}`);
    this.name = 'RunFileError';
  }
  /** "rollouts/g0001/x.json: not valid JSON (...)", for reports that already name the run. */
  get short(): string {
    return `${this.rel}: ${this.reason}`;
  }
}

/** The last run directory opened: an export reads thousands of files of one run. */
let last: { runDir: string; folder: SafeFolder } | undefined;

function folderOf(runDir: string): SafeFolder {
  if (last?.runDir === runDir) return last.folder;
  try {
    last = { runDir, folder: SafeFolder.open(runDir, { boundaryName: 'the run directory' }) };
    return last.folder;
  } catch (err) {
    throw new RunFormatError(`${runDir}: ${err instanceof FolderReadError ? err.reason : String(err)}`);
  }
}

/** Whether the file exists at all (a refused link or a FIFO exists: reading it reports why it is refused). */
export function runFileExists(runDir: string, rel: string): boolean {
  // A run directory removed while a viewer still lists it has no files (as existsSync said before), not an error.
  if (!existsSync(runDir)) return false;
  return folderOf(runDir).entry(rel).kind !== 'missing';
}

/** The stats of a run file that is a regular file inside the run directory (undefined: missing, or refused). */
export function runFileStats(runDir: string, rel: string): Stats | undefined {
  if (!existsSync(runDir)) return undefined;
  const e = folderOf(runDir).entry(rel);
  return e.kind === 'file' ? e.stats : undefined;
}

export function readRunText(runDir: string, rel: string, maxBytes: number): string {
  try {
    return folderOf(runDir).readText(rel, { maxBytes, what: 'a run file' });
  } catch (err) {
    if (err instanceof FolderReadError) throw new RunFileError(runDir, rel, err.reason);
    throw err;
  }
}

/** The parsed JSON of a run file; a parse error names the file. */
export function readRunJson(runDir: string, rel: string, maxBytes: number): unknown {
  const text = readRunText(runDir, rel, maxBytes);
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new RunFileError(runDir, rel, `not valid JSON (${err instanceof Error ? err.message : String(err)})`);
  }
}
