import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type Docker from 'dockerode';
import { baseImageTags, packagesOf, rootfsDir, rootfsMarker } from './baseImages.js';
import type { BaseImageVariant } from './baseImages.js';
import { buildBusyboxRootfs, buildDebianRootfs } from './rootfs.js';

export interface BuildImageResult {
  variant: BaseImageVariant;
  tag: string;
  imageId: string;
  rootfs: string;
  /** False when both the image and the rootfs folder were already there. */
  built: boolean;
  durationMs: number;
}

export interface BuildImageOptions {
  docker?: Docker;
  /** Rebuild even when the tag and the rootfs already exist. */
  force?: boolean;
  log?: (line: string) => void;
  /** Only export the rootfs folder (for bwrap on a machine without Docker). */
  rootfsOnly?: boolean;
}

/**
 * Builds a base image without a registry: a root folder (busybox-static, or debootstrap minbase) kept under the
 * cache dir for the bwrap backend, then `docker import`ed from a tar stream and tagged. Cheap when both exist.
 */
export async function buildBaseImage(variant: BaseImageVariant, options: BuildImageOptions = {}): Promise<BuildImageResult> {
  const started = performance.now();
  const log = options.log ?? (() => undefined);
  const tag = baseImageTags[variant];
  const rootfs = rootfsDir(variant);
  const existing = options.docker && !options.force ? await imageId(options.docker, tag) : undefined;
  const haveRootfs = existsSync(join(rootfs, rootfsMarker));
  if (!options.force && haveRootfs && (options.rootfsOnly || existing)) {
    return { variant, tag, imageId: existing ?? '', rootfs, built: false, durationMs: Math.round(performance.now() - started) };
  }
  if (options.force || !haveRootfs) {
    log(`building the ${variant} root folder in ${rootfs}`);
    const tmp = `${rootfs}.tmp-${process.pid}`;
    await rm(tmp, { recursive: true, force: true });
    await mkdir(dirname(rootfs), { recursive: true });
    await mkdir(tmp);
    try {
      if (variant === 'busybox') await buildBusyboxRootfs(tmp);
      else await buildDebianRootfs(tmp, log, packagesOf(variant));
      await writeFile(join(tmp, rootfsMarker), `${variant}\n`);
      await rm(rootfs, { recursive: true, force: true });
      await rename(tmp, rootfs);
    } catch (err) {
      await rm(tmp, { recursive: true, force: true });
      throw err;
    }
  }
  let id = '';
  if (!options.rootfsOnly) {
    if (!options.docker) throw new Error('no Docker client given for the image import');
    log(`importing ${rootfs} as ${tag}`);
    await importRootfs(options.docker, rootfs, tag, variant === 'busybox' ? '/bin' : '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin');
    id = (await imageId(options.docker, tag)) ?? '';
    if (!id) throw new Error(`docker import reported success but ${tag} is not on the host`);
  }
  return { variant, tag, imageId: id, rootfs, built: true, durationMs: Math.round(performance.now() - started) };
}

async function imageId(docker: Docker, tag: string): Promise<string | undefined> {
  try {
    return (await docker.getImage(tag).inspect()).Id;
  } catch {
    return undefined;
  }
}

/** `docker import` through the API: the tar stream comes from the system tar, which keeps owners, links and modes. */
async function importRootfs(docker: Docker, dir: string, tag: string, path: string): Promise<void> {
  const [repo, version] = tag.split(':') as [string, string];
  const tar = spawn('tar', ['-C', dir, '--numeric-owner', '--exclude', `./${rootfsMarker}`, '-c', '.'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let tarError = '';
  tar.stderr.on('data', (c: Buffer) => (tarError += c.toString()));
  const tarDone = new Promise<number>((resolve) => tar.on('close', (code) => resolve(code ?? 1)));
  const response = await docker.importImage(tar.stdout, { repo, tag: version, changes: ['CMD ["/bin/sh"]', `ENV PATH=${path}`, 'LABEL coevolve.base=1'] } as object);
  await new Promise<void>((resolve, reject) => {
    docker.modem.followProgress(response, (err: Error | null, events: { error?: string }[]) => {
      const failed = events?.find((e) => e.error);
      if (err || failed) reject(err ?? new Error(failed?.error));
      else resolve();
    });
  });
  const code = await tarDone;
  if (code !== 0) throw new Error(`tar of ${dir} failed (exit ${code}): ${tarError.trim()}`);
}
