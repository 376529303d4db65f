import { basename, dirname } from 'node:path';
import type { RunEvent } from '../core/ports/runStore.js';
import { checkRunEvent } from './records.js';
import { readRunText, runFileExists, runFileLimits } from './runFiles.js';

export interface EventLogProblem {
  line: number;
  /** What was wrong and what was skipped: "not valid JSON (...); the line was skipped". */
  error: string;
}

export interface EventLogRead {
  events: RunEvent[];
  /** Bytes after the last complete line (a write torn by a crash); they are ignored. */
  tornTailBytes: number;
  /** Complete lines that are not a valid event: reported with their line number, skipped. */
  badLines: EventLogProblem[];
}

/** Events already checked by readEventLog, so indexing them again costs nothing. */
export const checkedEvents = new WeakSet<object>();

/** One line of events.jsonl as an event, or why it cannot be used. */
export function parseEventLine(line: string): { event: RunEvent } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    return { problem: `not valid JSON (${err instanceof Error ? err.message : String(err)})` };
  }
  const checked = checkRunEvent(value);
  if ('event' in checked) checkedEvents.add(checked.event);
  return checked;
}

/**
 * Reads an events.jsonl, tolerating a truncated last line left by a crash. Every other line that is not a valid
 * event (corrupt, `null`, a field of the wrong type) is skipped and reported with its line number; the lines
 * after it are still read.
 */
export function readEventLog(path: string): EventLogRead {
  const runDir = dirname(path);
  const rel = basename(path);
  if (!runFileExists(runDir, rel)) return { events: [], tornTailBytes: 0, badLines: [] };
  const text = readRunText(runDir, rel, runFileLimits.events);
  const lastNewline = text.lastIndexOf('\n');
  const tornTailBytes = Buffer.byteLength(text.slice(lastNewline + 1));
  const events: RunEvent[] = [];
  const badLines: EventLogProblem[] = [];
  let lineNo = 0;
  for (const line of text.slice(0, lastNewline + 1).split('\n')) {
    lineNo++;
    if (line.length === 0) continue;
    const r = parseEventLine(line);
    if ('event' in r) events.push(r.event);
    else badLines.push({ line: lineNo, error: `${r.problem}; the line was skipped` });
  }
  return { events, tornTailBytes, badLines };
}
