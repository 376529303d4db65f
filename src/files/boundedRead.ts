// Reading a file named by input we do not control (a spec, a run directory, an import) without trusting it:
// only regular files, never more than a cap, and a FIFO or a device never blocks or floods us. The size is
// checked on the open descriptor, so what is checked is what is read.
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';

export interface BoundedReadOptions {
  /** Largest file accepted, in bytes. */
  maxBytes: number;
  /** Refuse a path whose last component is a symbolic link (importers resolve links themselves first). */
  noFollow?: boolean;
}

/** Why a file could not be read; `reason` reads after the file name ("is not a regular file (a FIFO)"). */
export class FileReadError extends Error {
  constructor(readonly file: string, readonly reason: string, readonly code: 'not-regular' | 'too-large' | 'link' | 'encoding' | 'io', readonly size?: number) {
    super(`${file}: ${reason}`);
    this.name = 'FileReadError';
  }
}

/** O_NONBLOCK: opening a FIFO for reading must not wait for a writer. No effect on regular files. */
function openFlags(noFollow: boolean | undefined): number {
  return constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (noFollow ? (constants.O_NOFOLLOW ?? 0) : 0);
}

export function describeFileType(st: Stats): string {
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  if (st.isSymbolicLink()) return 'a symbolic link';
  return 'not a file';
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} bytes`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1).replace(/\.0$/, '')} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1).replace(/\.0$/, '')} MiB`;
  return `${(n / 1024 ** 3).toFixed(1).replace(/\.0$/, '')} GiB`;
}

function tooLarge(file: string, size: number | undefined, max: number): FileReadError {
  const what = size === undefined ? 'more than' : `${formatBytes(size)},`;
  return new FileReadError(file, `is ${what} larger than the ${formatBytes(max)} this reader accepts`, 'too-large', size);
}

function checkStat(file: string, st: Stats, max: number): void {
  if (!st.isFile()) throw new FileReadError(file, `is not a regular file (${describeFileType(st)})`, 'not-regular');
  if (st.size > max) throw tooLarge(file, st.size, max);
}

function openError(file: string, err: unknown): FileReadError {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ELOOP') return new FileReadError(file, 'is a symbolic link, which this reader does not follow', 'link');
  return new FileReadError(file, `cannot be read (${code ?? (err instanceof Error ? err.message : String(err))})`, 'io');
}

/** The whole file, or a FileReadError. A file that grows past the cap while it is read is refused too. */
export function readFileBounded(file: string, options: BoundedReadOptions): Buffer {
  let fd: number;
  try {
    fd = openSync(file, openFlags(options.noFollow));
  } catch (err) {
    throw openError(file, err);
  }
  try {
    const st = fstatSync(fd);
    checkStat(file, st, options.maxBytes);
    const chunks: Buffer[] = [];
    let total = 0;
    // One read of the stated size plus one to see EOF; a file that grows keeps going in 1 MiB steps up to the cap.
    let want = st.size + 1;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(want, options.maxBytes + 1 - total));
      const n = readSync(fd, chunk, 0, chunk.length, total);
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
      total += n;
      if (total > options.maxBytes) throw tooLarge(file, undefined, options.maxBytes);
      // A regular file reads short only at its end: no second read (and no second buffer) for the usual case.
      if (n < chunk.length) break;
      want = 1 << 20;
    }
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
  } finally {
    closeSync(fd);
  }
}

/** The asynchronous form of readFileBounded, for readers that must not block the editor's host. */
export async function readFileBoundedAsync(file: string, options: BoundedReadOptions): Promise<Buffer> {
  let fh;
  try {
    fh = await open(file, openFlags(options.noFollow));
  } catch (err) {
    throw openError(file, err);
  }
  try {
    const st = await fh.stat();
    checkStat(file, st, options.maxBytes);
    const chunks: Buffer[] = [];
    let total = 0;
    let want = st.size + 1;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(want, options.maxBytes + 1 - total));
      const { bytesRead } = await fh.read(chunk, 0, chunk.length, total);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
      if (total > options.maxBytes) throw tooLarge(file, undefined, options.maxBytes);
      if (bytesRead < chunk.length) break;
      want = 1 << 20;
    }
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
  } finally {
    await fh.close();
  }
}

/** Text of a file that must be UTF-8; undecodable bytes are an error naming the file and the byte offset. */
export function decodeUtf8Strict(file: string, buf: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(buf);
  } catch {
    throw new FileReadError(file, `is not valid UTF-8 text (first bad byte at offset ${firstInvalidUtf8(buf)})`, 'encoding');
  }
}

/** Offset of the first byte that does not start or continue a valid UTF-8 sequence. */
function firstInvalidUtf8(buf: Buffer): number {
  // Binary search on prefixes: a prefix decodes cleanly up to the first fault (a cut sequence at the end only
  // fails because it is cut, so the prefix is shortened by up to 3 bytes to make sure).
  let lo = 0, hi = buf.length;
  const ok = (end: number): boolean => {
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(buf.subarray(0, end), { stream: true });
      return true;
    } catch {
      return false;
    }
  };
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (ok(mid)) lo = mid;
    else hi = mid - 1;
  }
  // The decoder fails on the byte after an incomplete sequence (or at the end): point at that sequence's lead.
  return leadOfIncomplete(buf, lo) ?? lo;
}

function leadOfIncomplete(buf: Buffer, end: number): number | undefined {
  let start = end - 1;
  while (start >= 0 && end - start < 4 && (buf[start]! & 0xc0) === 0x80) start--;
  if (start < 0) return undefined;
  const lead = buf[start]!;
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return need > end - start ? start : undefined;
}
