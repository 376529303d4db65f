// An input folder (a Harbor task, a dataset, a tau2 domain, a Docker build context) read as hostile: nothing
// outside it is ever read. A symbolic link is resolved, and followed only when its target stays inside the folder;
// otherwise it is refused with a note. Every read is bounded (regular files only, a byte cap per file) and text
// must be UTF-8 without NUL bytes. Importers build on this; messages name files relative to the folder they were
// asked about, never the host path a link leads to.
import { lstatSync, readdirSync, realpathSync, statSync, type Stats } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { decodeUtf8Strict, describeFileType, FileReadError, formatBytes, readFileBounded } from './boundedRead.js';

/** A file or folder of the input that could not be used; `reason` reads after the path. */
export class FolderReadError extends Error {
  constructor(readonly path: string, readonly reason: string) {
    super(`${path}: ${reason}`);
    this.name = 'FolderReadError';
  }
}

export type FolderEntry =
  | { kind: 'file' | 'dir'; rel: string; real: string; stats: Stats; viaLink: boolean }
  | { kind: 'missing'; rel: string }
  | { kind: 'refused'; rel: string; reason: string };

export interface FolderFile {
  /** Path relative to the folder the listing was asked for, with "/" separators. */
  rel: string;
  /** Permission bits. */
  mode: number;
  size: number;
}

export interface ListOptions {
  /** Stop after this many files (a note says so). */
  maxFiles?: number;
}

export interface ReadTextOptions {
  maxBytes: number;
  /** What the file is, for messages: "an instruction", "a spec file". */
  what: string;
}

export const outsideReason = (boundary: string): string => `a symbolic link that leads outside ${boundary}; not read`;

export interface SafeFolderOptions {
  /** How messages name the boundary: "the input folder", "the run directory". */
  boundaryName?: string;
}

export class SafeFolder {
  private constructor(
    /** Real path of the input folder: the boundary nothing is read beyond. */
    readonly root: string,
    /** Real path of the folder this view names files from (the root or a folder inside it). */
    readonly base: string,
    private readonly boundaryName: string,
  ) {}

  /** The folder given by the user, as the boundary. Throws FolderReadError when it is not a folder. */
  static open(path: string, options: SafeFolderOptions = {}): SafeFolder {
    let real: string;
    try {
      real = realpathSync(path);
    } catch {
      throw new FolderReadError(path, 'does not exist');
    }
    if (!statSync(real).isDirectory()) throw new FolderReadError(path, 'is not a folder');
    return new SafeFolder(real, real, options.boundaryName ?? 'the input folder');
  }

  /** A view of a folder inside this one; the boundary stays the same. */
  sub(rel: string): SafeFolder {
    const e = this.entry(rel);
    if (e.kind !== 'dir') throw new FolderReadError(rel, e.kind === 'refused' ? e.reason : 'is not a folder');
    return new SafeFolder(this.root, e.real, this.boundaryName);
  }

  /** This view's folder relative to the boundary ("" for the boundary itself). */
  get relToRoot(): string {
    return relative(this.root, this.base).split(sep).join('/');
  }

  private inside(real: string): boolean {
    return real === this.root || real.startsWith(this.root.endsWith(sep) ? this.root : this.root + sep);
  }

  /** What `rel` is, with links resolved; never throws for a missing or hostile path. */
  entry(rel: string): FolderEntry {
    if (rel.startsWith('/') || rel.split(/[\\/]/).includes('..')) return { kind: 'refused', rel, reason: 'a path that leaves its folder; not read' };
    const abs = join(this.base, rel);
    // Fast path: no component is a link, so the path is inside and its lstat is its stat (no realpath needed).
    let cur = this.base;
    let stats: Stats | undefined;
    for (const part of rel.split(/[\\/]/).filter((p) => p !== '' && p !== '.')) {
      cur = join(cur, part);
      try {
        stats = lstatSync(cur);
      } catch {
        return { kind: 'missing', rel };
      }
      if (stats.isSymbolicLink()) return this.resolveLinked(rel, abs);
    }
    return this.classify(rel, cur, stats ?? statSync(cur), false);
  }

  /** A path with a link in it: followed only when where it leads is inside the boundary. */
  private resolveLinked(rel: string, abs: string): FolderEntry {
    let real: string;
    try {
      real = realpathSync(abs);
    } catch {
      // Either the last component is a dangling link, or something behind a link does not exist.
      try {
        lstatSync(abs);
        return { kind: 'refused', rel, reason: 'a symbolic link to nothing; not read' };
      } catch {
        return { kind: 'missing', rel };
      }
    }
    if (!this.inside(real)) return { kind: 'refused', rel, reason: outsideReason(this.boundaryName) };
    return this.classify(rel, real, statSync(real), true);
  }

  private classify(rel: string, real: string, stats: Stats, viaLink: boolean): FolderEntry {
    if (stats.isFile()) return { kind: 'file', rel, real, stats, viaLink };
    if (stats.isDirectory()) return { kind: 'dir', rel, real, stats, viaLink };
    return { kind: 'refused', rel, reason: `not a regular file (${describeFileType(stats)}); not read` };
  }

  has(rel: string): boolean {
    return this.entry(rel).kind === 'file';
  }

  /** Bytes of a file, at most maxBytes; throws FolderReadError naming the file. */
  readBytes(rel: string, options: ReadTextOptions): Buffer {
    const e = this.entry(rel);
    if (e.kind === 'missing') throw new FolderReadError(rel, 'does not exist');
    if (e.kind === 'refused') throw new FolderReadError(rel, e.reason);
    if (e.kind === 'dir') throw new FolderReadError(rel, 'is a folder, not a file');
    try {
      // The real path holds no link any more; O_NOFOLLOW refuses one planted after the check.
      return readFileBounded(e.real, { maxBytes: options.maxBytes, noFollow: true });
    } catch (err) {
      if (!(err instanceof FileReadError)) throw err;
      if (err.code === 'too-large') {
        const size = err.size === undefined ? 'more than that' : formatBytes(err.size);
        throw new FolderReadError(rel, `is ${size}, larger than the ${formatBytes(options.maxBytes)} ${options.what} may hold`);
      }
      throw new FolderReadError(rel, err.reason);
    }
  }

  /** UTF-8 text without NUL bytes; throws FolderReadError naming the file otherwise. */
  readText(rel: string, options: ReadTextOptions): string {
    return textOf(rel, this.readBytes(rel, options), options.what);
  }

  /** readText, or undefined when the file does not exist (a refused or unreadable one still throws). */
  readTextIfPresent(rel: string, options: ReadTextOptions): string | undefined {
    return this.entry(rel).kind === 'missing' ? undefined : this.readText(rel, options);
  }

  /**
   * Every regular file under `rel`, sorted, with links resolved inside the boundary. Links that lead outside,
   * FIFOs, devices and sockets are left out with a note each ("path: why"); linked folders are walked once.
   */
  listFiles(rel: string, options: ListOptions = {}): { files: FolderFile[]; notes: string[] } {
    const files: FolderFile[] = [];
    const notes: string[] = [];
    const top = this.entry(rel);
    if (top.kind !== 'dir') {
      if (top.kind === 'refused') notes.push(`${rel}: ${top.reason}`);
      return { files, notes };
    }
    const max = options.maxFiles ?? 10_000;
    const visited = new Set<string>();
    const walk = (dirRel: string, real: string): void => {
      if (visited.has(real)) return;
      visited.add(real);
      for (const name of readdirSync(real).sort()) {
        const childRel = dirRel ? `${dirRel}/${name}` : name;
        const full = rel ? `${rel}/${childRel}` : childRel;
        const e = this.entry(full);
        if (e.kind === 'refused') notes.push(`${full}: ${e.reason}`);
        else if (e.kind === 'dir') walk(childRel, e.real);
        else if (e.kind === 'file') {
          if (files.length >= max) {
            notes.push(`${rel}: more than ${max} files; the rest were not read`);
            return;
          }
          files.push({ rel: childRel, mode: e.stats.mode & 0o777, size: e.stats.size });
        }
      }
    };
    walk('', top.real);
    return { files, notes };
  }

  /** Folders directly inside `rel` (links resolved inside the boundary), with a note for each refused one. */
  subfolders(rel: string): { dirs: string[]; notes: { rel: string; reason: string }[] } {
    const top = this.entry(rel);
    const dirs: string[] = [];
    const notes: { rel: string; reason: string }[] = [];
    if (top.kind !== 'dir') return { dirs, notes };
    for (const name of readdirSync(top.real).sort()) {
      const childRel = rel ? `${rel}/${name}` : name;
      const e = this.entry(childRel);
      if (e.kind === 'dir') dirs.push(childRel);
      else if (e.kind === 'refused' && lstatSync(join(this.base, childRel)).isSymbolicLink()) notes.push({ rel: childRel, reason: e.reason });
    }
    return { dirs, notes };
  }
}

/** Text of an input file: UTF-8 with no NUL byte (a NUL means a binary file, which no text field can carry). */
export function textOf(rel: string, buf: Buffer, what: string): string {
  const nul = buf.indexOf(0);
  if (nul >= 0) throw new FolderReadError(rel, `is binary (a NUL byte at offset ${nul}); ${what} is text`);
  try {
    return decodeUtf8Strict(rel, buf);
  } catch (err) {
    if (err instanceof FileReadError) throw new FolderReadError(rel, err.reason);
    throw err;
  }
}
