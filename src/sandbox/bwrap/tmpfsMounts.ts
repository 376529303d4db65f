import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * Size-limited tmpfs mounts for a bwrap sandbox's folders (diskMb for the workspace, /tmp and the verifier's
 * folders). Only root can mount on the host; without root the folders are plain and only the per-file rlimit holds.
 * A persistent namespace (issue 13) can make the same mounts inside itself with `bwrap --size N --tmpfs`.
 */
export function canMountTmpfs(): boolean {
  return process.platform === 'linux' && process.getuid?.() === 0;
}

export function mountTmpfs(dir: string, sizeMb: number, mode: number): void {
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m,mode=${mode.toString(8)},nosuid,nodev`, 'tmpfs', dir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`could not mount a ${sizeMb} MB tmpfs for a bwrap sandbox: ${(r.stderr || r.error?.message || '').trim()}`);
}

/** Lazily unmounts every mount at or under `dir` (deepest first); a sandbox folder is removed only afterwards. */
export function unmountUnder(dir: string): void {
  for (const target of mountsUnder(dir)) spawnSync('umount', ['-l', target]);
}

export function mountsUnder(dir: string): string[] {
  let text = '';
  try {
    text = readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return [];
  }
  const prefix = dir.endsWith('/') ? dir : `${dir}/`;
  // Field 5 is the mount point, with spaces and other bytes escaped as octal.
  const points = text.split('\n').map((l) => l.split(' ')[4]).filter((p): p is string => !!p).map((p) => p.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8))));
  return points.filter((p) => p === dir || p.startsWith(prefix)).sort((a, b) => b.length - a.length);
}
