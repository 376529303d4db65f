import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SandboxLimits } from '../../core/spec/environment.js';

const root = '/sys/fs/cgroup';
const controllers = ['memory', 'pids', 'cpu'] as const;
/** Our cgroups are named coevolve-<owner pid>-<id>, so the reaper can find those of dead runs. */
export const cgroupPrefix = 'coevolve-';

/**
 * cgroup v1 limits for one local sandbox (bwrap has none of its own). Only root can create cgroups; elsewhere the
 * backend falls back to rlimits. Every command of the sandbox joins the same groups, as in a container.
 */
export class CgroupLimits {
  private constructor(readonly name: string, readonly paths: string[]) {}

  /** True when this process can create v1 memory and pids cgroups. */
  static available(): boolean {
    return process.getuid?.() === 0 && existsSync(join(root, 'memory', 'cgroup.procs')) && existsSync(join(root, 'pids', 'cgroup.procs'));
  }

  static async create(id: string, limits: SandboxLimits): Promise<CgroupLimits> {
    const name = `${cgroupPrefix}${process.pid}-${id}`;
    const paths: string[] = [];
    const group = new CgroupLimits(name, paths);
    try {
      for (const c of controllers) {
        const dir = join(root, c, name);
        if (!existsSync(join(root, c))) continue;
        await mkdir(dir);
        paths.push(dir);
      }
      const bytes = String(limits.memoryMb * 1024 * 1024);
      await writeFile(join(root, 'memory', name, 'memory.limit_in_bytes'), bytes);
      // Without a swap limit the kernel would page out instead of OOM-killing; it exists only with swap accounting.
      await writeFile(join(root, 'memory', name, 'memory.memsw.limit_in_bytes'), bytes).catch(() => undefined);
      await writeFile(join(root, 'pids', name, 'pids.max'), String(limits.pids));
      if (paths.some((p) => p.includes('/cpu/'))) {
        await writeFile(join(root, 'cpu', name, 'cpu.cfs_period_us'), '100000');
        await writeFile(join(root, 'cpu', name, 'cpu.cfs_quota_us'), String(Math.round(limits.cpus * 100000)));
      }
      return group;
    } catch (err) {
      await group.remove();
      throw err;
    }
  }

  /** The groups' cgroup.procs files: a process that writes its pid to each joins them (the channel's launcher). */
  procsFiles(): string[] {
    return this.paths.map((p) => join(p, 'cgroup.procs'));
  }

  /** Shell words that move the shell running them into these groups. */
  joinScript(): string {
    return this.paths.map((p) => `echo $$ > ${p}/cgroup.procs`).join(' && ');
  }

  /** Kills whatever is in the groups now, until they are empty (forks racing the kill lose). */
  async killAll(): Promise<void> {
    for (const dir of this.paths) {
      for (let attempt = 0; attempt < 100; attempt++) {
        const pids = (await readFile(join(dir, 'cgroup.procs'), 'utf8').catch(() => '')).split('\n').filter(Boolean);
        if (pids.length === 0) break;
        for (const pid of pids) {
          try {
            process.kill(Number(pid), 'SIGKILL');
          } catch {
            // gone already
          }
        }
        await new Promise((r) => setTimeout(r, 10));
      }
    }
  }

  /** Kills whatever is still in the groups and removes them. */
  async remove(): Promise<void> {
    await removeCgroup(this.paths);
  }
}

async function removeCgroup(paths: string[]): Promise<void> {
  for (const dir of paths) {
    for (let attempt = 0; attempt < 50; attempt++) {
      const pids = (await readFile(join(dir, 'cgroup.procs'), 'utf8').catch(() => '')).split('\n').filter(Boolean);
      for (const pid of pids) {
        try {
          process.kill(Number(pid), 'SIGKILL');
        } catch {
          // gone already
        }
      }
      try {
        await rmdir(dir);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') break;
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  }
}

/** Removes our cgroups whose owner pid is no longer running. */
export async function reapStaleCgroups(isPidAlive: (pid: number) => boolean): Promise<number> {
  let removed = 0;
  const names = new Set<string>();
  for (const c of controllers) {
    const dir = join(root, c);
    if (!existsSync(dir)) continue;
    for (const entry of await readdir(dir).catch(() => [] as string[])) if (entry.startsWith(cgroupPrefix)) names.add(entry);
  }
  for (const name of names) {
    const pid = Number(name.slice(cgroupPrefix.length).split('-')[0]);
    if (isPidAlive(pid)) continue;
    await removeCgroup(controllers.map((c) => join(root, c, name)).filter((p) => existsSync(p)));
    removed++;
  }
  return removed;
}
