import { existsSync, readFileSync } from 'node:fs';
import type { RunEvent } from '../core/ports/runStore.js';

export interface EventLogRead {
  events: RunEvent[];
  /** Bytes after the last complete line (a write torn by a crash); they are ignored. */
  tornTailBytes: number;
  /** Complete lines that did not parse (never expected; reported, not fatal). */
  badLines: { line: number; error: string }[];
}

/** Reads an events.jsonl, tolerating a truncated last line left by a crash. */
export function readEventLog(path: string): EventLogRead {
  if (!existsSync(path)) return { events: [], tornTailBytes: 0, badLines: [] };
  const text = readFileSync(path, 'utf8');
  const lastNewline = text.lastIndexOf('\n');
  const complete = text.slice(0, lastNewline + 1);
  const tornTailBytes = Buffer.byteLength(text.slice(lastNewline + 1));
  const events: RunEvent[] = [];
  const badLines: EventLogRead['badLines'] = [];
  let lineNo = 0;
  for (const line of complete.split('\n')) {
    lineNo++;
    if (line.length === 0) continue;
    try {
      events.push(JSON.parse(line) as RunEvent);
    } catch (err) {
      badLines.push({ line: lineNo, error: err instanceof Error ? err.message : String(err) });
    }
  }
  return { events, tornTailBytes, badLines };
}
