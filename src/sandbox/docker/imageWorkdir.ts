import type Docker from 'dockerode';
import { extract, pack } from 'tar-stream';
import type { Readable } from 'node:stream';

/** The image's files at the workdir, as a tar whose entries are relative to the workdir; none when it has none. */
export interface ImageWorkdirFiles {
  tar: Buffer | undefined;
  bytes: number;
  entries: number;
}

/**
 * A task image's own files at its workdir (Harbor's `WORKDIR /app` + `COPY service.log /app/`). The workspace is a
 * size-limited tmpfs volume mounted over the workdir, which hides them, and Docker does not copy image content into
 * a tmpfs volume. So they are read from the image itself: a container of the image that is created, never started,
 * and removed (`getArchive` reads the image's filesystem), re-rooted at the workdir. The bytes come from the image,
 * not from any sandbox; they go into the sandbox through `tar -x` inside it. Only folders, regular files and links
 * are kept (an image has no business putting devices in a workdir). Cached per image id by the caller.
 */
export async function readImageWorkdir(docker: Docker, image: string, workdir: string, labels: Record<string, string>, maxBytes: number): Promise<ImageWorkdirFiles> {
  const container = await docker.createContainer({ Image: image, Entrypoint: ['true'], Cmd: [], Labels: labels, NetworkDisabled: true, HostConfig: { NetworkMode: 'none' } });
  try {
    let stream: Readable;
    try {
      stream = (await container.getArchive({ path: workdir })) as unknown as Readable;
    } catch (err) {
      if ((err as { statusCode?: number }).statusCode === 404) return { tar: undefined, bytes: 0, entries: 0 };
      throw err;
    }
    return await reroot(stream, maxBytes, image, workdir);
  } finally {
    await container.remove({ force: true }).catch(() => undefined);
  }
}

/** getArchive names entries `<basename of workdir>/...`; the copy wants them relative to the workdir itself. */
function reroot(stream: Readable, maxBytes: number, image: string, workdir: string): Promise<ImageWorkdirFiles> {
  return new Promise((resolve, reject) => {
    const out = pack();
    const chunks: Buffer[] = [];
    let bytes = 0;
    let entries = 0;
    out.on('data', (c) => chunks.push(c as Buffer));
    out.on('end', () => resolve({ tar: entries > 0 ? Buffer.concat(chunks) : undefined, bytes, entries }));
    const ex = extract();
    ex.on('entry', (header, body, next) => {
      const rel = header.name.replace(/^\.?\/?[^/]+\/?/, '');
      const kind = header.type;
      if (!rel || !['file', 'directory', 'symlink', 'link'].includes(kind ?? '')) {
        body.resume();
        body.on('end', next);
        return;
      }
      bytes += header.size ?? 0;
      if (bytes > maxBytes) {
        ex.destroy(new Error(`image ${image} holds more than ${maxBytes} bytes at its workdir ${workdir}, more than the workspace (sandbox.limits.diskMb) can take`));
        return;
      }
      entries++;
      const entry = out.entry({ ...header, name: rel, ...(header.linkname && kind === 'link' ? { linkname: header.linkname.replace(/^\.?\/?[^/]+\/?/, '') } : {}) }, (err) => (err ? ex.destroy(err) : next()));
      body.pipe(entry);
    });
    ex.on('finish', () => out.finalize());
    ex.on('error', reject);
    out.on('error', reject);
    stream.on('error', reject);
    stream.pipe(ex);
  });
}
