import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { RunEvent } from '../core/ports/runStore.js';

/**
 * Reads events.jsonl incrementally: each call reads only the bytes appended since the last one and returns the
 * complete new lines. A torn last line (a write in progress, or a crash) is kept until its newline arrives. If the
 * file shrank (the next writer repaired a torn tail), reading restarts from the beginning and `reset` is set.
 */
export class EventTail {
  private offset = 0;
  private pending = Buffer.alloc(0);

  /** `skipLine`: complete lines it holds true for are dropped before JSON.parse (a reader that needs fewer events). */
  constructor(private readonly path: string, private readonly skipLine?: (line: string) => boolean) {}

  read(): { events: RunEvent[]; reset: boolean; badLines: number; skipped: number } {
    let fd: number;
    try {
      fd = openSync(this.path, 'r');
    } catch {
      return { events: [], reset: false, badLines: 0, skipped: 0 };
    }
    let reset = false;
    const chunks: Buffer[] = [this.pending];
    try {
      const size = fstatSync(fd).size;
      if (size < this.offset) {
        this.offset = 0;
        chunks.length = 0;
        reset = true;
      }
      while (this.offset < size) {
        const buf = Buffer.allocUnsafe(Math.min(size - this.offset, 1 << 20));
        const n = readSync(fd, buf, 0, buf.length, this.offset);
        if (n <= 0) break;
        chunks.push(buf.subarray(0, n));
        this.offset += n;
      }
    } finally {
      closeSync(fd);
    }
    const all = Buffer.concat(chunks);
    const lastNewline = all.lastIndexOf(0x0a);
    this.pending = Buffer.from(all.subarray(lastNewline + 1));
    const events: RunEvent[] = [];
    let badLines = 0;
    let skipped = 0;
    if (lastNewline >= 0) {
      for (const line of all.subarray(0, lastNewline).toString('utf8').split('\n')) {
        if (line.length === 0) continue;
        if (this.skipLine?.(line)) {
          skipped++;
          continue;
        }
        try {
          events.push(JSON.parse(line) as RunEvent);
        } catch {
          badLines++;
        }
      }
    }
    return { events, reset, badLines, skipped };
  }

  /** Bytes consumed so far (complete lines plus a kept torn tail). */
  get position(): number {
    return this.offset;
  }
}
