import { Readable } from 'node:stream';
import { extract, pack } from 'tar-stream';
import type { Header as Headers } from 'tar-stream';
import type { TransferReport, WorkspaceArchive } from '../../core/ports/sandbox.js';
import { agentUid } from '../docker/tarFiles.js';
import { resolveInside } from './resolveLink.js';
import type { TreeEntry } from './resolveLink.js';

export interface SanitiseOptions {
  /** The workdir as the sandbox sees it; absolute link targets under it count as inside. */
  workdir: string;
  /** Bytes of file content kept at most (the sandbox's diskMb). */
  maxBytes: number;
  maxEntries?: number;
}

const listedDrops = 50;

/**
 * The sanitising transfer (see "The verifier's trust rule"): reads a tar of the agent's workspace as data and
 * writes one that holds only folders, regular files and links that resolve inside the workspace. Folders come
 * first (owner rwx, so nothing can lock the extraction or the verifier out), links last, so extracting it never
 * writes through a link. Everything dropped is listed with why.
 */
export async function sanitiseWorkspaceTar(input: Uint8Array, options: SanitiseOptions): Promise<WorkspaceArchive> {
  const report: TransferReport = { kept: 0, bytes: 0, dropped: [], droppedCount: 0 };
  const drop = (path: string, reason: string): void => {
    report.droppedCount++;
    if (report.dropped.length < listedDrops) report.dropped.push({ path, reason });
  };
  const { entries, order, bytes } = await readWorkspaceEntries(input, options, drop);
  dropOutwardLinks(entries, options.workdir, drop);
  const kept = order.filter((p) => entries.has(p));
  const tar = await packWorkspace(kept, entries);
  report.kept = kept.length;
  report.bytes = bytes;
  return { tar, report };
}

type KeptEntry = TreeEntry & { data?: Buffer; mode: number; mtime?: Date };

/** The archive's entries that may be kept, in archive order, and the bytes of file content they hold. */
async function readWorkspaceEntries(input: Uint8Array, options: SanitiseOptions, drop: (path: string, reason: string) => void): Promise<{ entries: Map<string, KeptEntry>; order: string[]; bytes: number }> {
  const maxEntries = options.maxEntries ?? 100_000;
  const entries = new Map<string, KeptEntry>();
  const order: string[] = [];
  let bytes = 0;
  for await (const { header, data } of readTar(input)) {
    const path = normaliseName(header.name);
    if (path === undefined) { drop(printable(header.name), 'name leaves the workspace or is not a plain relative path'); continue; }
    if (path === '') continue; // the workspace root itself
    const placeProblem = entries.has(path) ? 'duplicate entry' : entries.size >= maxEntries ? `more than ${maxEntries} entries` : ancestorProblem(path, entries);
    if (placeProblem) { drop(path, placeProblem); continue; }
    const entry = keptEntry(header, data, entries, { used: bytes, max: options.maxBytes });
    if (typeof entry === 'string') { drop(path, entry); continue; }
    if (entry.kind === 'file') bytes += data.length;
    entries.set(path, entry);
    order.push(path);
  }
  return { entries, order, bytes };
}

/**
 * One entry as it is kept, or why it is dropped: folders (owner rwx, so nothing can lock the extraction or the
 * verifier out), files within the byte budget, symlinks (checked once all are read), hard links to kept files.
 */
function keptEntry(header: Headers, data: Buffer, entries: ReadonlyMap<string, KeptEntry>, budget: { used: number; max: number }): KeptEntry | string {
  const mode = (header.mode ?? 0o644) & 0o777;
  const base = { mode, ...(header.mtime ? { mtime: header.mtime } : {}) };
  switch (header.type) {
    case 'directory':
      return { kind: 'dir', ...base, mode: mode | 0o700 };
    case 'file':
    case 'contiguous-file':
      if (budget.used + data.length > budget.max) return `past the workspace limit of ${budget.max} bytes`;
      return { kind: 'file', data, ...base };
    case 'symlink':
      return { kind: 'symlink', target: header.linkname ?? '', ...base };
    case 'link': {
      const target = normaliseName(header.linkname ?? '');
      if (target === undefined || entries.get(target)?.kind !== 'file') return 'hard link to something that is not a kept file of the workspace';
      return { kind: 'hardlink', target, ...base };
    }
    default:
      return `${header.type ?? 'unknown'} entries are not copied (only folders, files and links inside the workspace)`;
  }
}

/** The kept entries as a tar owned by the agent: folders first, links last, so extracting it never writes through a link. */
async function packWorkspace(kept: string[], entries: ReadonlyMap<string, KeptEntry>): Promise<Buffer> {
  const out = pack();
  const rank = (p: string): number => ({ dir: 0, file: 1, hardlink: 2, symlink: 3 })[entries.get(p)!.kind];
  const owner = { uid: agentUid, gid: agentUid };
  for (const p of [...kept].sort((a, b) => rank(a) - rank(b))) {
    const e = entries.get(p)!;
    const header = { name: p, mode: e.mode, ...owner, ...(e.mtime ? { mtime: e.mtime } : {}) };
    if (e.kind === 'dir') out.entry({ ...header, type: 'directory' });
    else if (e.kind === 'file') out.entry({ ...header, type: 'file' }, e.data ?? Buffer.alloc(0));
    else if (e.kind === 'hardlink') out.entry({ ...header, type: 'link', linkname: e.target });
    else out.entry({ ...header, type: 'symlink', linkname: e.target });
  }
  out.finalize();
  const chunks: Buffer[] = [];
  for await (const c of out as unknown as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

/** Drops symlinks until every one left resolves to a kept entry inside the workspace (dropping one can strand another). */
function dropOutwardLinks(entries: Map<string, TreeEntry>, workdir: string, drop: (path: string, reason: string) => void): void {
  for (let changed = true; changed;) {
    changed = false;
    for (const [path, e] of entries) {
      if (e.kind !== 'symlink') continue;
      const verdict = resolveInside(path, entries, workdir);
      if (verdict === 'inside') continue;
      entries.delete(path);
      drop(path, verdict === 'outside' ? `link to "${printable(e.target)}" leaves the workspace` : `link to "${printable(e.target)}" does not resolve to a file or folder of the workspace`);
      changed = true;
    }
  }
}

/** "./a/b" → "a/b"; undefined for absolute names, ".." parts, NUL or empty parts in the middle. */
export function normaliseName(name: string): string | undefined {
  if (name.includes('\0') || name.startsWith('/')) return undefined;
  const parts = name.split('/').filter((p, i, all) => !(p === '' && i === all.length - 1)).filter((p) => p !== '.');
  if (parts.some((p) => p === '..' || p === '')) return undefined;
  return parts.join('/');
}

function ancestorProblem(path: string, entries: Map<string, TreeEntry>): string | undefined {
  const parts = path.split('/');
  for (let i = 1; i < parts.length; i++) {
    const e = entries.get(parts.slice(0, i).join('/'));
    if (!e) return 'its folder is not in the archive';
    if (e.kind !== 'dir') return 'under something that is not a folder (a link or a file)';
  }
  return undefined;
}

function printable(s: string): string {
  const clean = s.replace(/[\0-\x1f\x7f]/g, '?');
  return clean.length > 200 ? `${clean.slice(0, 200)}…` : clean;
}

async function* readTar(input: Uint8Array): AsyncGenerator<{ header: Headers; data: Buffer }> {
  const ex = extract();
  Readable.from([Buffer.from(input)]).pipe(ex as unknown as NodeJS.WritableStream);
  for await (const entry of ex as unknown as AsyncIterable<NodeJS.ReadableStream & { header: Headers }>) {
    const chunks: Buffer[] = [];
    for await (const c of entry as AsyncIterable<Buffer>) chunks.push(c);
    yield { header: entry.header, data: Buffer.concat(chunks) };
  }
}
