import { spawn } from 'node:child_process';
import { chmod, copyFile, mkdir, open, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { verifierPaths } from '../../core/ports/sandbox.js';
import { debianPackages } from './baseImages.js';

/** The sandbox user: agent commands run as uid/gid 65534 in every backend. */
const passwd = 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/sh\n';
const group = 'root:x:0:\nnogroup:x:65534:\n';

/**
 * The mount points every sandbox binds: the workdir, the verifier's /tests and /logs/verifier (empty folders,
 * 755, owned by whoever builds the root; what a sandbox sees there is a mount filled only for the verifier), and
 * /run (where bwrap binds the command channel's supervisor). A read-only root must have them; bwrap adds them to
 * roots built before they existed, a root built now has them.
 */
export async function makeMountPoints(dir: string): Promise<void> {
  for (const p of ['/workspace', verifierPaths.tests, verifierPaths.logs, '/run']) {
    await mkdir(join(dir, p), { recursive: true });
    await chmod(join(dir, p), 0o755);
  }
}

/** True when the ELF file has no program interpreter, i.e. it runs without a dynamic loader. */
export async function isStaticElf(path: string): Promise<boolean> {
  const fh = await open(path, 'r');
  try {
    const header = Buffer.alloc(64);
    await fh.read(header, 0, 64, 0);
    if (header.readUInt32BE(0) !== 0x7f454c46 || header[4] !== 2) return false;
    const phoff = Number(header.readBigUInt64LE(32));
    const phentsize = header.readUInt16LE(54);
    const phnum = header.readUInt16LE(56);
    const table = Buffer.alloc(phentsize * phnum);
    await fh.read(table, 0, table.length, phoff);
    for (let i = 0; i < phnum; i++) if (table.readUInt32LE(i * phentsize) === 3) return false; // PT_INTERP
    return true;
  } finally {
    await fh.close();
  }
}

/** A busybox-static root: one binary, a symlink per applet, /workspace, /tmp, /tests, /logs/verifier and the nobody user. */
export async function buildBusyboxRootfs(dir: string, busybox = '/bin/busybox'): Promise<void> {
  if (!existsSync(busybox) || !(await isStaticElf(busybox))) {
    throw new Error(`${busybox} is missing or not statically linked; install busybox-static (apt-get install busybox-static) and retry`);
  }
  for (const d of ['bin', 'tmp', 'proc', 'sys', 'dev', 'etc', 'root']) await mkdir(join(dir, d), { recursive: true });
  await makeMountPoints(dir);
  await copyFile(busybox, join(dir, 'bin/busybox'));
  await chmod(join(dir, 'bin/busybox'), 0o755);
  const applets = (await run(busybox, ['--list'])).split('\n').filter((a) => a && a !== 'busybox');
  for (const a of applets) await symlink('busybox', join(dir, 'bin', a));
  await chmod(join(dir, 'tmp'), 0o1777);
  await writeFile(join(dir, 'etc/passwd'), passwd);
  await writeFile(join(dir, 'etc/group'), group);
}

/** The first Debian mirror in apt's own configuration (deb822 .sources first, then sources.list). */
export async function aptMirror(): Promise<string> {
  const dir = '/etc/apt/sources.list.d';
  const sources = existsSync(dir) ? (await readdir(dir)).filter((f) => f.endsWith('.sources')).sort() : [];
  for (const f of sources) {
    const text = await readFile(join(dir, f), 'utf8');
    for (const block of text.split(/\n\s*\n/)) {
      if (!/^Suites:.*\bbookworm\b/m.test(block) && !/^URIs:.*\/debian\/?\s*$/m.test(block)) continue;
      const uri = /^URIs:\s*(\S+)/m.exec(block)?.[1];
      if (uri && !uri.includes('security')) return uri;
    }
  }
  for (const file of ['/etc/apt/sources.list', ...(existsSync(dir) ? (await readdir(dir)).filter((f) => f.endsWith('.list')).map((f) => join(dir, f)) : [])]) {
    if (!existsSync(file)) continue;
    for (const line of (await readFile(file, 'utf8')).split('\n')) {
      const m = /^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+(\S+)/.exec(line.trim());
      if (m?.[1] && !m[1].includes('security')) return m[1];
    }
  }
  throw new Error('no Debian mirror found in /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list; add one, or build only --variant busybox');
}

/** A debootstrap minbase root with the tools terminal tasks use; apt caches removed to keep the image small. */
export async function buildDebianRootfs(dir: string, log: (line: string) => void, packages: string[] = debianPackages): Promise<void> {
  if (process.getuid?.() !== 0) throw new Error('building the debian base image runs debootstrap, which needs root; run it as root (e.g. in CI) or use --variant busybox');
  const debootstrap = ['/usr/sbin/debootstrap', '/usr/bin/debootstrap'].find((p) => existsSync(p));
  if (!debootstrap) throw new Error('debootstrap is not installed; apt-get install debootstrap, or use --variant busybox');
  const mirror = await aptMirror();
  log(`debootstrap bookworm from ${mirror} (about 30-60 s)`);
  await run(debootstrap, ['--variant=minbase', `--include=${packages.join(',')}`, 'bookworm', dir, mirror], log);
  await rm(join(dir, 'var/cache/apt/archives'), { recursive: true, force: true });
  await mkdir(join(dir, 'var/cache/apt/archives/partial'), { recursive: true });
  await rm(join(dir, 'var/lib/apt/lists'), { recursive: true, force: true });
  await mkdir(join(dir, 'var/lib/apt/lists/partial'), { recursive: true });
  await makeMountPoints(dir);
}

function run(file: string, args: string[], log?: (line: string) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let tail = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (log) for (const l of c.toString().split('\n')) if (l.startsWith('I: Retrieving') === false && l.trim()) tail = l;
    });
    child.stderr.on('data', (c: Buffer) => {
      tail = (tail + c.toString()).slice(-4000);
    });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${file} ${args.join(' ')} failed with exit code ${code}: ${tail.trim() || out.slice(-2000)}`))));
  });
}
