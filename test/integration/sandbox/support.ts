import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';
import { limitsSchema } from '../../../src/core/spec/environment.js';
import type { SandboxRequest } from '../../../src/core/ports/sandbox.js';
import { rootfsDir, rootfsMarker } from '../../../src/sandbox/images/baseImages.js';

/** Everything an integration test creates carries this label, so the tests can prove nothing is left behind. */
export const testLabels = { 'coevolve.test': '1' };

export const busyboxImage = 'coevolve/busybox:latest';
export const debianImage = 'coevolve/debian:bookworm';

/** Undefined when the local Docker engine answers and has the image; otherwise why not. */
export async function dockerProblem(image = busyboxImage): Promise<string | undefined> {
  const docker = new Docker();
  try {
    await docker.ping();
  } catch (err) {
    return `no Docker engine (${(err as Error).message})`;
  }
  try {
    await docker.getImage(image).inspect();
  } catch {
    return `image ${image} missing; run \`node dist/cli.js sandbox build-image\` (or .ci/images.sh)`;
  }
  return undefined;
}

/** Labelled containers and volumes this test process created that still exist (other processes' are not ours). */
export async function leftovers(docker = new Docker(), ownerPid = process.pid): Promise<{ containers: string[]; volumes: string[] }> {
  const filters = { label: ['coevolve.test=1', `coevolve.owner-pid=${ownerPid}`] };
  const containers = (await docker.listContainers({ all: true, filters })).map((c) => c.Names[0] ?? c.Id);
  const volumes = ((await docker.listVolumes({ filters })).Volumes ?? []).map((v) => v.Name);
  return { containers, volumes };
}

export function requestFor(over: Partial<SandboxRequest> = {}): SandboxRequest {
  return {
    image: busyboxImage,
    workdir: '/workspace',
    files: [],
    setup: [],
    env: {},
    limits: limitsSchema.parse({}),
    labels: { 'coevolve.run': 'test-run', 'coevolve.rollout': 'r1' },
    ...over,
  };
}

/** Undefined when bwrap can create its namespaces here and the busybox rootfs is exported; otherwise why not. */
export async function bwrapProblem(): Promise<string | undefined> {
  const r = spawnSync('bwrap', ['--ro-bind', '/', '/', '--unshare-all', '--unshare-user', '--uid', '65534', 'true']);
  if (r.error) return `bwrap not installed (${r.error.message})`;
  if (r.status !== 0) return `bwrap cannot create namespaces here: ${r.stderr.toString().trim()}`;
  if (!existsSync(join(rootfsDir('busybox'), rootfsMarker))) return 'busybox rootfs missing; run `node dist/cli.js sandbox build-image`';
  return undefined;
}

