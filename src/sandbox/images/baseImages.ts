import { homedir } from 'node:os';
import { join } from 'node:path';

export type BaseImageVariant = 'busybox' | 'debian' | 'python';
export const baseImageVariants: readonly BaseImageVariant[] = ['busybox', 'debian', 'python'];

/** The tags environment specs refer to; `coevolve/busybox:latest` is the EnvironmentSpec default. */
export const baseImageTags: Record<BaseImageVariant, string> = {
  busybox: 'coevolve/busybox:latest',
  debian: 'coevolve/debian:bookworm',
  // A richer base for imported and fixture tasks whose tests run pytest; its own tag, so the two images above stay as they are.
  python: 'coevolve-tasks/python:bookworm',
};

/** Packages a terminal task needs, baked in because the sandbox has no network for apt later. */
export const debianPackages = ['coreutils', 'grep', 'sed', 'gawk', 'findutils', 'procps', 'python3-minimal', 'jq', 'git', 'less', 'file', 'ca-certificates'];

/**
 * The python variant: the Debian packages plus full Python and pytest from Debian (PyPI is out of reach), and curl,
 * which Harbor test scripts install before they run their tests.
 */
export const pythonPackages = [...debianPackages, 'python3', 'python3-pytest', 'curl'];

/** The Debian packages a debootstrap variant bakes in. */
export function packagesOf(variant: Exclude<BaseImageVariant, 'busybox'>): string[] {
  return variant === 'python' ? pythonPackages : debianPackages;
}

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
