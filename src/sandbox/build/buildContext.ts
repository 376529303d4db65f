import { createHash } from 'node:crypto';
import { lstat, readFile, readdir, readlink, realpath } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';

/** One entry of a build context, as it goes into the tar sent to the daemon. */
export type ContextEntry =
  | { kind: 'file'; path: string; mode: number; content: Buffer }
  | { kind: 'dir'; path: string; mode: number }
  /** A link whose target stays inside the context (links out are refused). */
  | { kind: 'symlink'; path: string; mode: number; target: string };

export interface BuildContextLimits {
  maxBytes: number;
  maxFiles: number;
}

export const defaultContextLimits: BuildContextLimits = { maxBytes: 256 * 1024 * 1024, maxFiles: 20_000 };

/**
 * Reads a task's build context. The importers' safe folder reader (links out, byte caps) can stand in for the
 * default one through this interface; the build only needs the entries.
 */
export interface BuildContextReader {
  read(dir: string, limits: BuildContextLimits): Promise<ContextEntry[]>;
}

export class BuildContextError extends Error {
  constructor(readonly path: string, message: string) {
    super(`${path}: ${message}`);
    this.name = 'BuildContextError';
  }
}

/**
 * The default reader: walks the folder without following links (lstat), refuses links that leave it, hard links,
 * devices and sockets, honours `.dockerignore`, and stops at the byte and file caps with the path that crossed them.
 */
export const fsContextReader: BuildContextReader = {
  async read(dir, limits) {
    const root = await realpath(dir);
    const ignore = await readDockerignore(root);
    const out: ContextEntry[] = [];
    let bytes = 0;
    const walk = async (rel: string): Promise<void> => {
      const names = (await readdir(join(root, rel))).sort();
      for (const name of names) {
        const r = rel ? `${rel}/${name}` : name;
        const abs = join(root, r);
        const st = await lstat(abs);
        if (ignore.test(r)) {
          // An ignored folder is still searched when an exception (`!pattern`) could bring a file back.
          if (st.isDirectory() && ignore.hasExceptions) await walk(r);
          continue;
        }
        if (out.length >= limits.maxFiles) throw new BuildContextError(abs, `the build context has more than ${limits.maxFiles} entries`);
        const mode = st.mode & 0o7777;
        if (st.isSymbolicLink()) {
          const target = await readlink(abs);
          const resolved = resolve(join(root, rel), target);
          if (isAbsolute(target) || !isInside(root, resolved)) throw new BuildContextError(abs, `is a link to ${target}, outside the build context; links out are refused (copy the file in instead)`);
          out.push({ kind: 'symlink', path: r, mode, target });
        } else if (st.isDirectory()) {
          out.push({ kind: 'dir', path: r, mode });
          await walk(r);
        } else if (st.isFile()) {
          if (st.nlink > 1) throw new BuildContextError(abs, 'is a hard link; hard links are refused in build contexts (copy the file instead)');
          bytes += st.size;
          if (bytes > limits.maxBytes) throw new BuildContextError(abs, `the build context is larger than ${Math.round(limits.maxBytes / 1024 / 1024)} MiB`);
          out.push({ kind: 'file', path: r, mode, content: await readFile(abs) });
        } else {
          throw new BuildContextError(abs, 'is a device, socket or pipe; a build context holds files, folders and links only');
        }
      }
    };
    await walk('');
    return out;
  },
};

function isInside(root: string, p: string): boolean {
  const rel = relative(root, p);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** `.dockerignore` patterns (`*`, `**`, `?`, `!` exceptions, leading `/` ignored), last match wins, as Docker does. */
async function readDockerignore(root: string): Promise<{ test: (rel: string) => boolean; hasExceptions: boolean }> {
  let text: string;
  try {
    text = await readFile(join(root, '.dockerignore'), 'utf8');
  } catch {
    return { test: () => false, hasExceptions: false };
  }
  const rules = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l && !l.startsWith('#')).map((l) => {
    const negate = l.startsWith('!');
    const pat = (negate ? l.slice(1) : l).replace(/^\/+/, '').replace(/\/+$/, '');
    return { negate, re: globToRegExp(pat) };
  });
  const test = (rel: string): boolean => {
    let ignored = false;
    for (const r of rules) if (r.re.test(rel)) ignored = !r.negate;
    // The Dockerfile and .dockerignore are always sent: the builder needs them.
    return ignored && rel !== 'Dockerfile' && rel !== '.dockerignore';
  };
  return { test, hasExceptions: rules.some((r) => r.negate) };
}

function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      re += '.*';
      i++;
      if (glob[i + 1] === '/') i++;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  // A pattern also matches everything below a folder it names.
  return new RegExp(`^${re}(/.*)?$`);
}

/**
 * The content address of a build: the Dockerfile as built, the build arguments and every entry (path, mode, content
 * hash or link target). Base images are not in it, so the tag is known without a Docker host; the build records
 * the base image ids in labels and rebuilds when they change.
 */
export function contextDigest(dockerfile: string, dockerfilePath: string, entries: ContextEntry[], buildArgs: Record<string, string>): string {
  const h = createHash('sha256');
  h.update('coevolve-task-image/1\0');
  h.update(`${dockerfilePath}\0${dockerfile}\0`);
  for (const [k, v] of Object.entries(buildArgs).sort(([a], [b]) => a.localeCompare(b))) h.update(`arg\0${k}\0${v}\0`);
  for (const e of [...entries].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    if (e.path === dockerfilePath) continue;
    const body = e.kind === 'file' ? createHash('sha256').update(e.content).digest('hex') : e.kind === 'symlink' ? e.target : '';
    h.update(`${e.kind}\0${e.path}\0${e.mode.toString(8)}\0${body}\0`);
  }
  return h.digest('hex');
}
