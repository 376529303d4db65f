import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { reapStaleCgroups } from './bwrap/cgroupLimits.js';
import { describeDockerHost } from './docker/connect.js';
import { DockerBackend } from './docker/dockerBackend.js';
import { ownerIsAlive, pidIsAlive } from './docker/labels.js';
import { removeDir, workspacePrefix } from './local/workspaceDir.js';
import { unmountUnder } from './bwrap/tmpfsMounts.js';
import { spawnerFallbackDir, spawnerPrefix } from './bwrap/spawner.js';

export interface ReapReport {
  containers: number;
  volumes: number;
  /** Local sandbox folders (bwrap, process) and bwrap spawner socket folders of dead owners. */
  folders: number;
  cgroups: number;
  /** Docker hosts that could not be reached, with why; nothing was removed there. */
  unreachable: { host: string; reason: string }[];
}

export interface ReapOptions {
  /** Docker endpoints to clean; default: DOCKER_HOST or the local socket. */
  hosts?: { url: string; tlsDir?: string }[];
  /** Whether a sandbox's owner still runs; default: its owner pid is a live process on this machine. */
  isAlive?: (labels: Record<string, string>) => boolean;
}

/**
 * Removes what dead runs left behind: labelled containers and volumes on each Docker host, local sandbox folders
 * and cgroups. Called at every run start and by `coevolve sandbox reap`; a kill -9 of a run leaves nothing after
 * the next start. Hosts that do not answer are reported, not fatal.
 */
export async function reapStale(options: ReapOptions = {}): Promise<ReapReport> {
  const report: ReapReport = { containers: 0, volumes: 0, folders: 0, cgroups: 0, unreachable: [] };
  const hosts = options.hosts && options.hosts.length > 0 ? options.hosts : [{ url: undefined as string | undefined, tlsDir: undefined }];
  for (const h of hosts) {
    const backend = new DockerBackend({ url: h.url, tlsDir: h.tlsDir });
    try {
      await backend.docker.ping();
      const r = await backend.reap(options.isAlive ?? ownerIsAlive);
      report.containers += r.containers;
      report.volumes += r.volumes;
    } catch (err) {
      report.unreachable.push({ host: describeDockerHost(h.url), reason: err instanceof Error ? err.message : String(err) });
    }
  }
  // Sandbox folders, and the bwrap spawner's socket folder (a run killed with -9 cannot remove its own), which is in
  // spawnerFallbackDir (/tmp) when TMPDIR was too long for a socket's path.
  const places = [{ dir: tmpdir(), prefixes: [workspacePrefix, spawnerPrefix] }];
  if (resolve(tmpdir()) !== resolve(spawnerFallbackDir)) places.push({ dir: spawnerFallbackDir, prefixes: [spawnerPrefix] });
  for (const { dir, prefixes } of places) {
    for (const entry of await readdir(dir).catch(() => [] as string[])) {
      const prefix = prefixes.find((p) => entry.startsWith(p));
      if (!prefix) continue;
      const pid = Number(entry.slice(prefix.length).split('-')[0]);
      if (!Number.isInteger(pid) || pidIsAlive(pid)) continue;
      // A bwrap sandbox's folders are tmpfs mounts when its run was root: unmount first, or rmdir fails with EBUSY.
      unmountUnder(join(dir, entry));
      await removeDir(join(dir, entry));
      report.folders++;
    }
  }
  report.cgroups = await reapStaleCgroups(pidIsAlive).catch(() => 0);
  return report;
}
