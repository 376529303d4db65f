import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { SandboxBackendName } from '../core/ports/sandbox.js';
import { limitsSchema } from '../core/spec/environment.js';
import { CgroupLimits } from './bwrap/cgroupLimits.js';
import { describeDockerHost } from './docker/connect.js';
import { DockerBackend } from './docker/dockerBackend.js';
import { baseImageTags, baseImageVariants, rootfsDir, rootfsMarker } from './images/baseImages.js';
import { processBackendWarning } from './process/processBackend.js';

export interface BackendCheck {
  backend: SandboxBackendName;
  works: boolean;
  /** What was found, in a line. */
  detail: string;
  /** What is missing or weak, each with what to do about it. */
  problems: string[];
}

/** Says which sandbox backends work on this machine and, for each that does not, why and how to fix it. */
export async function diagnoseSandboxes(options: { dockerUrl?: string } = {}): Promise<BackendCheck[]> {
  return [await checkDocker(options.dockerUrl), checkBwrap(), { backend: 'process', works: true, detail: 'always available', problems: [processBackendWarning] }];
}

async function checkDocker(url?: string): Promise<BackendCheck> {
  const host = describeDockerHost(url);
  const backend = new DockerBackend({ url, labels: { 'coevolve.doctor': '1' } });
  let version: string;
  try {
    version = (await withTimeout(backend.docker.version(), 3000)).Version;
  } catch (err) {
    return {
      backend: 'docker', works: false, detail: `no Docker engine answers at ${host}`,
      problems: [`${errorText(err)}. Start the engine (e.g. \`dockerd &\` or \`systemctl start docker\`), or point DOCKER_HOST at one (Podman: \`podman system service\` and DOCKER_HOST=unix://…/podman.sock).`],
    };
  }
  const problems: string[] = [];
  const present: string[] = [];
  for (const variant of baseImageVariants) {
    const tag = baseImageTags[variant];
    const ok = await backend.docker.getImage(tag).inspect().then(() => true, () => false);
    if (ok) present.push(tag);
    else problems.push(`image ${tag} is missing: run \`coevolve sandbox build-image --variant ${variant}\``);
  }
  let works = present.length > 0;
  if (works) {
    // Prove the whole path (create, start, exec as the sandbox user, remove), not just the API.
    try {
      const s = await backend.start({ image: present[0] as string, workdir: '/workspace', files: [], setup: [], env: {}, limits: limitsSchema.parse({}), labels: {} });
      try {
        const r = await s.exec('id -u', { timeoutMs: 10_000 });
        if (r.stdout.trim() !== '65534') throw new Error(`a test command ran as uid "${r.stdout.trim()}" instead of 65534 (${r.stderr.trim()})`);
      } finally {
        await s.stop();
      }
    } catch (err) {
      works = false;
      problems.unshift(`a test sandbox failed: ${errorText(err)}`);
    }
  } else {
    problems.unshift('no base image, so no sandbox can start');
  }
  return { backend: 'docker', works, detail: `Docker ${version} at ${host}; images: ${present.join(', ') || 'none'}`, problems };
}

function checkBwrap(): BackendCheck {
  const v = spawnSync('bwrap', ['--version'], { encoding: 'utf8' });
  if (v.error || v.status !== 0) {
    return { backend: 'bwrap', works: false, detail: 'bubblewrap is not installed', problems: ['install it: `apt-get install bubblewrap` (Debian/Ubuntu) or `dnf install bubblewrap` (Fedora)'] };
  }
  const probe = spawnSync('bwrap', ['--ro-bind', '/', '/', '--unshare-all', '--unshare-user', '--uid', '65534', '--gid', '65534', '--die-with-parent', 'true'], { encoding: 'utf8' });
  if (probe.status !== 0) {
    return {
      backend: 'bwrap', works: false, detail: `${v.stdout.trim()} cannot create namespaces`,
      problems: [`${probe.stderr.trim() || `exit ${probe.status}`}. Unprivileged user namespaces may be disabled: \`sysctl kernel.unprivileged_userns_clone=1\`, or on Ubuntu 24.04+ allow bwrap in AppArmor (kernel.apparmor_restrict_unprivileged_userns=0).`],
    };
  }
  const problems: string[] = [];
  const roots = baseImageVariants.filter((variant) => existsSync(join(rootfsDir(variant), rootfsMarker)));
  if (roots.length === 0) problems.push(`no exported root folder, so sandboxes see a read-only view of this machine's /usr: run \`coevolve sandbox build-image --rootfs-only\` (folders go to ${join(rootfsDir('busybox'), '..')})`);
  if (!CgroupLimits.available()) problems.push('memory, pids and cpu limits are rlimits only (cgroup limits need root and cgroup v1 memory/pids controllers); the process limit does not apply to root');
  const rootText = roots.length ? `root folders: ${roots.join(', ')}` : 'host /usr view';
  return { backend: 'bwrap', works: true, detail: `${v.stdout.trim()}; ${rootText}; ${CgroupLimits.available() ? 'cgroup limits' : 'rlimits only'}`, problems };
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    p.then((v) => { clearTimeout(t); resolve(v); }, (e: unknown) => { clearTimeout(t); reject(e); });
  });
}
