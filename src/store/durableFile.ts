import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, writeSync, ftruncateSync, fstatSync, readSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Writes a whole file so that a reader never sees half of it: temp name, fsync, rename, fsync of the folder.
 * Synchronous on purpose: these writes are small and their ordering with the event log matters more than throughput.
 */
export function writeFileDurable(path: string, data: string | Buffer): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}`;
  const fd = openSync(tmp, 'w');
  try {
    writeAll(fd, typeof data === 'string' ? Buffer.from(data) : data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  fsyncDir(dirname(path));
}

export function fsyncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some filesystems refuse fsync on a directory; the rename is still atomic there.
  }
}

function writeAll(fd: number, buf: Buffer): void {
  let off = 0;
  while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
}

/**
 * An append-only JSON-lines log. Opening it repairs a crash-truncated tail: anything after the last newline
 * is cut off before the first append, so a half-written line never becomes the prefix of a new one.
 */
export class JsonlAppender {
  private fd: number;
  readonly repairedBytes: number;

  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true });
    this.fd = openSync(path, 'a+');
    this.repairedBytes = repairTail(this.fd);
  }

  append(value: unknown): void {
    writeAll(this.fd, Buffer.from(`${JSON.stringify(value)}\n`));
    fsyncSync(this.fd);
  }

  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }
}

/** Truncates the file after its last "\n"; returns how many bytes were cut. */
function repairTail(fd: number): number {
  const size = fstatSync(fd).size;
  if (size === 0) return 0;
  const chunk = Buffer.alloc(Math.min(size, 1 << 16));
  let end = size;
  while (end > 0) {
    const start = Math.max(0, end - chunk.length);
    const n = readSync(fd, chunk, 0, end - start, start);
    const idx = chunk.subarray(0, n).lastIndexOf(0x0a);
    if (idx >= 0) {
      const keep = start + idx + 1;
      if (keep < size) {
        ftruncateSync(fd, keep);
        fsyncSync(fd);
      }
      return size - keep;
    }
    end = start;
  }
  ftruncateSync(fd, 0);
  fsyncSync(fd);
  return size;
}
