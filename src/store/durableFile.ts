import { closeSync, fsync, fsyncSync, ftruncateSync, fstatSync, mkdirSync, openSync, readSync, renameSync, write, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { mkdir, open, rename } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Writes a whole file so that a reader never sees half of it: temp name, fsync, rename.
 * The folder is not fsync'd: if a crash loses the rename, the event that announces the file is lost with it or
 * the reader finds no file and the run replays that rollout — nothing recorded is ever half-read.
 */
export async function writeFileDurable(path: string, data: string | Buffer): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}`;
  const fh = await open(tmp, 'w');
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, path);
}

/** The synchronous form, for the few writes that must be done before anything else starts (the manifest). */
export function writeFileDurableSync(path: string, data: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, data);
  const fd = openSync(tmp, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

const writeAsync = promisify(write);
const fsyncAsync = promisify(fsync);

async function writeAll(fd: number, buf: Buffer): Promise<void> {
  let off = 0;
  while (off < buf.length) off += (await writeAsync(fd, buf, off, buf.length - off)).bytesWritten;
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

  /**
   * One write of the whole line, then fsync: a line is either entirely in the log or (torn) repaired away.
   * Callers serialise appends (RunWriter's queue) so lines never interleave.
   */
  async append(value: unknown): Promise<void> {
    await writeAll(this.fd, Buffer.from(`${JSON.stringify(value)}\n`));
    await fsyncAsync(this.fd);
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
