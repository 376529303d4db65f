import type { Command } from 'commander';
import { dockerFromUrl } from '../../sandbox/docker/connect.js';
import { baseImageVariants } from '../../sandbox/images/baseImages.js';
import type { BaseImageVariant } from '../../sandbox/images/baseImages.js';
import { buildBaseImage } from '../../sandbox/images/buildImage.js';
import { UserError } from '../errors.js';

export function registerSandboxBuildImageCommand(sandbox: Command): void {
  sandbox
    .command('build-image')
    .description('Build the local base images (no registry needed) and export their root folders for bwrap.')
    .option('--variant <variant>', 'busybox (2 MB, seconds), debian (debootstrap minbase with the usual tools, ~1 min, needs root) or python (debian plus Python, pytest and curl, for imported tasks; ~2 min, needs root)', 'busybox')
    .option('--host <url>', 'Docker endpoint (default DOCKER_HOST or the local socket)')
    .option('--rootfs-only', 'only export the root folder (for bwrap on a machine without Docker)')
    .option('--force', 'rebuild even when the image and root folder exist')
    .action(async (opts: { variant: string; host?: string; rootfsOnly?: boolean; force?: boolean }) => {
      if (!baseImageVariants.includes(opts.variant as BaseImageVariant)) {
        throw new UserError(`unknown --variant "${opts.variant}"; use one of: ${baseImageVariants.join(', ')}`, 2);
      }
      const docker = opts.rootfsOnly ? undefined : dockerFromUrl(opts.host);
      if (docker) {
        await docker.ping().catch((err: Error) => {
          throw new UserError(`cannot reach Docker (${err.message}); start the engine, set DOCKER_HOST, or pass --rootfs-only to export only the bwrap root folder`);
        });
      }
      const result = await buildBaseImage(opts.variant as BaseImageVariant, {
        docker,
        force: opts.force,
        rootfsOnly: opts.rootfsOnly,
        log: (line) => process.stderr.write(`${line}\n`),
      });
      const what = result.built ? 'built' : 'already built';
      process.stdout.write(`${result.tag}: ${what}${result.imageId ? ` (${result.imageId.slice(7, 19)})` : ''}, root folder ${result.rootfs}, ${(result.durationMs / 1000).toFixed(1)} s\n`);
    });
}
