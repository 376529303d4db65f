/** What the sanitising transfer knows of one workspace entry. */
export type TreeEntry =
  | { kind: 'dir' }
  | { kind: 'file' }
  | { kind: 'hardlink'; target: string }
  | { kind: 'symlink'; target: string };

const maxHops = 40; // the kernel's limit of links followed in one lookup

export type LinkVerdict = 'inside' | 'outside' | 'dangling';

/**
 * Resolves the symlink at `path` the way the kernel would, against the archive's own entries: every link on the
 * way is followed (".." after a link goes to the parent of its target, not of the link), and the walk must never
 * climb above the workspace root nor use an absolute target outside the workdir. Lexical checks are not enough:
 * `down -> sub/up/..` with `sub/up -> ..` looks inside but ends above the root.
 */
export function resolveInside(path: string, entries: ReadonlyMap<string, TreeEntry>, workdir: string): LinkVerdict {
  const link = entries.get(path);
  if (!link || link.kind !== 'symlink') return 'dangling';
  const parent = path.split('/').slice(0, -1);
  const r = walk(parent, [link.target], entries, workdir, { hops: 1 });
  if (r === 'outside' || r === 'dangling') return r;
  return entries.has(r.join('/')) || r.length === 0 ? 'inside' : 'dangling';
}

function walk(start: string[], targets: string[], entries: ReadonlyMap<string, TreeEntry>, workdir: string, budget: { hops: number }): string[] | 'outside' | 'dangling' {
  let stack = [...start];
  const queue: string[] = [];
  for (const t of targets) {
    if (t.startsWith('/')) {
      const w = workdir.replace(/\/+$/, '');
      if (t !== w && !t.startsWith(`${w}/`)) return 'outside';
      stack = [];
      queue.push(...t.slice(w.length).split('/'));
    } else {
      queue.push(...t.split('/'));
    }
  }
  while (queue.length > 0) {
    const part = queue.shift() as string;
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (stack.length === 0) return 'outside';
      stack.pop();
      continue;
    }
    const here = [...stack, part].join('/');
    const e = entries.get(here);
    if (!e) return 'dangling';
    if (e.kind === 'symlink') {
      if (++budget.hops > maxHops) return 'dangling';
      const r = walk(stack, [e.target], entries, workdir, budget);
      if (r === 'outside' || r === 'dangling') return r;
      stack = r;
      continue;
    }
    if ((e.kind === 'file' || e.kind === 'hardlink') && queue.some((p) => p !== '' && p !== '.')) return 'dangling';
    stack.push(part);
  }
  return stack;
}
