/**
 * Keeps the head and the tail of a stream up to a byte budget, so a command that floods its output still reports
 * how it started and how it ended; the cut is marked in the text.
 */
export class CappedOutput {
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private readonly tail: Buffer[] = [];
  private tailBytes = 0;
  /** Every byte seen, kept or not. */
  total = 0;

  constructor(private readonly maxBytes: number) {}

  get truncated(): boolean {
    return this.total > this.maxBytes;
  }

  push(chunk: Buffer): void {
    this.total += chunk.length;
    const headCap = Math.ceil(this.maxBytes / 2);
    if (this.headBytes < headCap) {
      const take = Math.min(headCap - this.headBytes, chunk.length);
      this.head.push(chunk.subarray(0, take));
      this.headBytes += take;
      chunk = chunk.subarray(take);
      if (chunk.length === 0) return;
    }
    const tailCap = this.maxBytes - headCap;
    if (tailCap <= 0) return;
    if (chunk.length >= tailCap) {
      this.tail.length = 0;
      this.tail.push(Buffer.from(chunk.subarray(chunk.length - tailCap)));
      this.tailBytes = tailCap;
      return;
    }
    this.tail.push(Buffer.from(chunk));
    this.tailBytes += chunk.length;
    while (this.tailBytes > tailCap) {
      const first = this.tail[0] as Buffer;
      const excess = this.tailBytes - tailCap;
      if (first.length <= excess) {
        this.tail.shift();
        this.tailBytes -= first.length;
      } else {
        this.tail[0] = first.subarray(excess);
        this.tailBytes -= excess;
      }
    }
  }

  /** The bytes as received; only whole when nothing was cut (check `truncated`). */
  bytes(): Buffer {
    return Buffer.concat([...this.head, ...this.tail]);
  }

  text(): string {
    const head = Buffer.concat(this.head).toString('utf8');
    if (!this.truncated) return head + Buffer.concat(this.tail).toString('utf8');
    const cut = this.total - this.headBytes - this.tailBytes;
    return `${head}\n[coevolve: ${cut} bytes of output cut; ${this.total} bytes in total]\n${Buffer.concat(this.tail).toString('utf8')}`;
  }
}

/**
 * A command that writes far past the cap is stopped: nothing beyond the cap reaches the caller anyway, and
 * streaming a gigabyte through the engine costs seconds per command.
 */
export function floodLimit(maxOutputBytes: number): number {
  return Math.max(16 * 1024 * 1024, 16 * maxOutputBytes);
}
