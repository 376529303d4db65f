import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readFileSync, readdirSync, rmdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import Docker from 'dockerode';

/**
 * A throwaway Docker daemon on its own socket, data root, exec root and pidfile, without bridge or iptables, so a
 * test can run a pool of engines on one machine and kill one; the default daemon is never touched.
 */
export interface ExtraDockerd {
  url: string;
  docker: Docker;
  dir: string;
  process: ChildProcess;
  /** kill -9: the engine stops answering mid-run. */
  crash(): void;
  /** Stops the daemon and removes everything it ran and stored, crashed or not. */
  destroy(): Promise<void>;
  log(): string;
}

export async function startExtraDockerd(): Promise<ExtraDockerd> {
  // Short path: a unix socket path must stay under ~100 bytes.
  const dir = mkdtempSync('/tmp/cv-dockerd-');
  const url = `unix://${dir}/docker.sock`;
  const logFd = openSync(join(dir, 'dockerd.log'), 'a');
  const child = spawn('dockerd', [
    '--data-root', join(dir, 'data'), '--exec-root', join(dir, 'exec'), '--pidfile', join(dir, 'docker.pid'),
    '-H', url, '--bridge=none', '--iptables=false', '--ip6tables=false',
  ], { stdio: ['ignore', logFd, logFd] });
  const docker = new Docker({ socketPath: `${dir}/docker.sock` });
  const log = (): string => readFileSync(join(dir, 'dockerd.log'), 'utf8').slice(-3000);
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  for (let i = 0; ; i++) {
    try {
      await docker.ping();
      break;
    } catch {
      if (i > 150 || child.exitCode !== null) {
        child.kill('SIGKILL');
        throw new Error(`extra dockerd did not start: ${log()}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return {
    url, docker, dir, process: child, log,
    crash: () => {
      child.kill('SIGKILL');
    },
    destroy: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        for (const c of await docker.listContainers({ all: true }).catch(() => [])) await docker.getContainer(c.Id).remove({ force: true, v: true }).catch(() => undefined);
        child.kill('SIGTERM');
      }
      await exited;
      killOrphans(dir);
      for (const m of mountsUnder(dir)) spawnSync('umount', ['-l', m]);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * After a kill -9 the daemon's containerd shims and container processes live on. They are found by this daemon's
 * own folder (the shims' -address) and its container ids (the cgroups), so nothing else on the machine is touched.
 */
function killOrphans(dir: string): void {
  const kill = (pid: number): void => {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  };
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    let cmd = '';
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (cmd.includes('containerd-shim') && cmd.includes(`${dir}/exec/`)) kill(Number(pid));
  }
  const containersDir = join(dir, 'data', 'containers');
  const ids = existsSync(containersDir) ? readdirSync(containersDir) : [];
  for (const controller of readdirSync('/sys/fs/cgroup')) {
    for (const id of ids) {
      const cg = join('/sys/fs/cgroup', controller, 'docker', id);
      if (!existsSync(cg)) continue;
      for (let attempt = 0; attempt < 50; attempt++) {
        for (const pid of readFileSync(join(cg, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) kill(Number(pid));
        try {
          rmdirSync(cg);
          break;
        } catch {
          spawnSync('sleep', ['0.05']);
        }
      }
    }
  }
}

function mountsUnder(dir: string): string[] {
  return readFileSync('/proc/self/mounts', 'utf8').split('\n').map((l) => l.split(' ')[1] ?? '').filter((m) => m === `${dir}/data` || m.startsWith(`${dir}/`)).sort().reverse();
}
