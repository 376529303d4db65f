import { homedir } from 'node:os';
import { join } from 'node:path';

export type BaseImageVariant = 'busybox' | 'debian';
export const baseImageVariants: readonly BaseImageVariant[] = ['busybox', 'debian'];

/** The tags environment specs refer to; `coevolve/busybox:latest` is the EnvironmentSpec default. */
export const baseImageTags: Record<BaseImageVariant, string> = {
  busybox: 'coevolve/busybox:latest',
  debian: 'coevolve/debian:bookworm',
};

/** Packages a terminal task needs, baked in because the sandbox has no network for apt later. */
export const debianPackages = ['coreutils', 'grep', 'sed', 'gawk', 'findutils', 'procps', 'python3-minimal', 'jq', 'git', 'less', 'file', 'ca-certificates'];

/** Where exported rootfs folders live (the bwrap backend's default roots): $COEVOLVE_CACHE_DIR or ~/.cache/coevolve. */
export function cacheDir(): string {
  return process.env.COEVOLVE_CACHE_DIR ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'coevolve');
}

export function rootfsDir(variant: BaseImageVariant): string {
  return join(cacheDir(), 'rootfs', variant);
}

/** Written last into a finished rootfs, so a half-built folder is never mistaken for a usable one. */
export const rootfsMarker = '.coevolve-rootfs';

/** The variant whose base image has this tag, for error messages that say which build to run. */
export function variantOfImage(image: string): BaseImageVariant | undefined {
  return baseImageVariants.find((v) => baseImageTags[v] === image);
}
