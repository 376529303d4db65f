import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, normalize, relative, resolve } from 'node:path';

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

export async function removeDir(path: string): Promise<void> {
  await rm(path, { recursive: true, force: true, maxRetries: 3 });
}
