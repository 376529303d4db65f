import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, normalize, relative, resolve } from 'node:path';
import type { SandboxFile } from '../../core/spec/environment.js';

/**
 * Host folders that hold a local sandbox start with this and the owner's pid, so the reaper can tell leftovers of a
 * dead run from live sandboxes.
 */
export const workspacePrefix = 'coevolve-sbx-';

export async function createWorkspaceDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), `${workspacePrefix}${process.pid}-`));
}

/** Parses "755" / "0644" into permission bits; files without a mode get 0644. */
export function parseMode(mode: string | undefined): number {
  return mode === undefined ? 0o644 : parseInt(mode, 8);
}

/** Resolves a workspace-relative path, refusing any that would leave the workspace. */
export function insideWorkspace(root: string, path: string): string {
  const full = resolve(root, normalize(path));
  const rel = relative(root, full);
  if (rel.startsWith('..') || isAbsolute(rel)) throw new Error(`file path "${path}" leaves the workspace; use a path relative to it`);
  return full;
}

export async function writeWorkspaceFiles(root: string, files: SandboxFile[], owner?: { uid: number; gid: number }): Promise<void> {
  for (const file of files) {
    const full = insideWorkspace(root, file.path);
    await mkdir(dirname(full), { recursive: true });
    await writeFile(full, file.content);
    await chmod(full, parseMode(file.mode));
    if (owner) {
      const { chown } = await import('node:fs/promises');
      await chown(full, owner.uid, owner.gid).catch(() => undefined);
    }
  }
}

/**
 * Maps a path as a command in the sandbox sees it to the host: paths under the workdir, or relative ones, land in
 * the workspace folder; `extra` maps further sandbox prefixes (e.g. /tmp) to host folders.
 */
export function hostPathOf(root: string, workdir: string, path: string, extra: Record<string, string> = {}): string | undefined {
  if (!path.startsWith('/')) return insideWorkspace(root, path);
  const w = workdir.endsWith('/') ? workdir : `${workdir}/`;
  if (path === workdir) return root;
  if (path.startsWith(w)) return insideWorkspace(root, path.slice(w.length));
  for (const [prefix, hostDir] of Object.entries(extra)) {
    const p = prefix.endsWith('/') ? prefix : `${prefix}/`;
    if (path.startsWith(p)) return insideWorkspace(hostDir, path.slice(p.length));
  }
  return undefined;
}

export async function readIfExists(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'EISDIR') return undefined;
    throw err;
  }
}

export async function removeDir(path: string): Promise<void> {
  await rm(path, { recursive: true, force: true, maxRetries: 3 });
}
