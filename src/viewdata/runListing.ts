import { closeSync, existsSync, fstatSync, lstatSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { generationMetricsVersion } from '../core/metrics/metricsSchema.js';
import type { RunManifest } from '../core/ports/runStore.js';
import { runLayout } from '../store/layout.js';
import { runFileLimits, readRunJson } from '../store/runFiles.js';
import { runRecordRelPath } from '../store/runPaths.js';
import { isRunAlive, type RunStatus } from '../store/runReader.js';
import type { RequestParamsOf, RunChoice, RunName, RunsWindow } from '../webview/protocol.js';
import type { RunResolver } from './runRegistry.js';

/** What a runs list (and the Runs tree's root) shows of a run, read without its event log. */
export type RunFacts = Omit<RunChoice, 'runDir' | 'label' | 'description'>;

interface Cached {
  stamp: string;
  facts: RunFacts;
}

const cache = new Map<string, Cached>();
// The status is in the last lines: 4 KiB hold them; 64 KiB when the last run.finished is further up.
const tailBytes = [4 * 1024, 64 * 1024];

/**
 * A run as one row of a runs list, from what is cheap to read: the manifest, the names in generations/, the last
 * generation's stored metrics and the last 64 KiB of events.jsonl (for the status). No event log is read whole, so
 * a list of a thousand runs costs a few thousand small reads; rows are cached until the run's files change.
 */
export function runChoice(dir: string, manifest: RunManifest, ref: string): RunChoice {
  return { runDir: ref, label: manifest.name, description: descriptionOf(manifest), ...runFacts(dir, manifest) };
}

const descriptionOf = (m: RunManifest): string => `${m.startedAt.replace('T', ' ').slice(0, 16)} · ${m.runId}`;

/** A run's row facts, cached until its event log changes (a running run's status is checked every time). */
export function runFacts(dir: string, manifest: RunManifest): RunFacts {
  const stamp = stampOf(dir);
  let hit = cache.get(dir);
  // A running run can stop without writing (its process died): its status is checked every time.
  if (!hit || hit.stamp !== stamp || hit.facts.status === 'running') {
    hit = { stamp, facts: factsOf(dir, manifest) };
    cache.set(dir, hit);
  }
  return hit.facts;
}

/** The runs a host lists (the dashboard's compare picker, the browser's runs page), newest first. */
export function runChoices(runs: RunResolver): RunChoice[] {
  return runs.listed().map((r) => runChoice(r.dir, r.manifest, runs.refOf(r.dir)));
}

/**
 * `fn` over `items`, giving the event loop back whenever a slice has taken `budgetMs`: the first list of a thousand
 * runs reads a few thousand files (seconds under load), and a server answering one request at a time would hold
 * every other page's requests (its assets included) until it is done. A budget of time, not of runs: a run's reads
 * cost ten times more on a loaded machine, and 50 runs per slice held the next page's assets 0.3 s there.
 */
async function mapYielding<T, R>(items: readonly T[], fn: (item: T) => R, budgetMs = 8): Promise<R[]> {
  const out: R[] = [];
  let sliceStart = performance.now();
  for (const item of items) {
    if (performance.now() - sliceStart > budgetMs) {
      await new Promise<void>((r) => setImmediate(r));
      sliceStart = performance.now();
    }
    out.push(fn(item));
  }
  return out;
}

/** `runChoices`, giving the event loop back as it goes (mapYielding). */
export function runChoicesYielding(runs: RunResolver, budgetMs?: number): Promise<RunChoice[]> {
  return mapYielding(runs.listed(), (r) => runChoice(r.dir, r.manifest, runs.refOf(r.dir)), budgetMs);
}

/**
 * Every run as a picker names it (the dashboard's compare picker): manifest and status only. The status is the
 * tail of the event log; no metrics file is read (a row's metrics cost ~6 ms per run under load, seconds for a
 * thousand runs that a picker never shows).
 */
export function runNamesYielding(runs: RunResolver, budgetMs?: number): Promise<RunName[]> {
  return mapYielding(runs.listed(), ({ dir, manifest: m }) => ({ runDir: runs.refOf(dir), label: m.name, description: descriptionOf(m), name: m.name, runId: m.runId, startedAt: m.startedAt, status: statusOf(dir) }), budgetMs);
}

/**
 * One window of the runs list: every run is listed (manifests are read once), but only the window's rows are read,
 * so the first screen of a list of thousands costs the reads of its own rows.
 */
export function runsWindow(runs: RunResolver, p: RequestParamsOf<'runs/page'>): RunsWindow {
  const listed = runs.listed();
  const runsOfWindow = listed.slice(p.offset, p.offset + p.limit).map((r) => runChoice(r.dir, r.manifest, runs.refOf(r.dir)));
  return { total: listed.length, offset: p.offset, runs: runsOfWindow };
}

/** Every change a row shows is announced by an event (metrics are written before generation.finished). */
function stampOf(dir: string): string {
  try {
    const s = statSync(runLayout.events(dir));
    return `${s.size}:${s.mtimeMs}`;
  } catch {
    return '-';
  }
}

function factsOf(dir: string, manifest: RunManifest): Cached['facts'] {
  const gens = generationIndexes(dir);
  let rollouts = 0;
  let last: RowMetrics | undefined;
  for (const g of gens) {
    const m = rowMetrics(dir, g);
    if (!m) continue;
    rollouts += m.rollouts;
    last = m;
  }
  return {
    name: manifest.name, runId: manifest.runId, startedAt: manifest.startedAt, status: statusOf(dir), generations: gens.length, rollouts,
    ...(last ? { lastSuccessRate: last.successRate, lastGeneration: last.index } : {}),
  };
}

interface RowMetrics {
  index: number;
  rollouts: number;
  successRate: number;
}

/**
 * The three numbers a row shows from a generation's stored metrics, each checked as the number it must be; a link,
 * a broken file or a newer metrics version is skipped. The whole schema (the dashboard reads the file with it) cost
 * ten times the read here, for a thousand runs on a list.
 */
function rowMetrics(dir: string, generation: number): RowMetrics | undefined {
  try {
    if (!lstatSync(runLayout.generationMetrics(dir, generation)).isFile()) return undefined;
    const raw = readRunJson(dir, runRecordRelPath({ kind: 'generation', generation }), runFileLimits.metrics) as Record<string, unknown>;
    const version = raw['metricsVersion'] ?? 1;
    const { index, rollouts, successRate } = raw;
    if (typeof version !== 'number' || version > generationMetricsVersion) return undefined;
    if (index !== generation || !Number.isSafeInteger(rollouts) || (rollouts as number) < 0) return undefined;
    if (typeof successRate !== 'number' || !(successRate >= 0 && successRate <= 1)) return undefined;
    return { index, rollouts: rollouts as number, successRate };
  } catch {
    return undefined;
  }
}

function generationIndexes(dir: string): number[] {
  const folder = join(dir, 'generations');
  if (!existsSync(folder)) return [];
  return readdirSync(folder).flatMap((n) => {
    const m = /^g(\d{4,})\.json$/.exec(n);
    return m ? [Number(m[1])] : [];
  }).sort((a, b) => a - b);
}

/** The status the index would compute (the last run.finished unless a run.resumed follows it, else the lock). */
function statusOf(dir: string): RunStatus {
  let text = '';
  let complete = false;
  for (const n of tailBytes) {
    ({ text, complete } = tailOf(runLayout.events(dir), n));
    // Enough when the last run event's whole line is in the tail (a newline before it), or the tail is the file.
    const last = Math.max(text.lastIndexOf('"type":"run.finished"'), text.lastIndexOf('"type":"run.resumed"'));
    if (complete || (last >= 0 && text.lastIndexOf('\n', last) >= 0)) break;
  }
  const finished = text.lastIndexOf('"type":"run.finished"');
  const resumed = text.lastIndexOf('"type":"run.resumed"');
  if (finished >= 0 && finished > resumed) {
    const lineStart = text.lastIndexOf('\n', finished) + 1;
    const lineEnd = text.indexOf('\n', finished);
    try {
      const e = JSON.parse(text.slice(lineStart, lineEnd < 0 ? undefined : lineEnd)) as { status?: RunStatus };
      if (e.status) return e.status;
    } catch {
      // a torn last line: fall through to the lock
    }
  }
  return isRunAlive(dir) ? 'running' : 'interrupted';
}

/** The last `bytes` of a file, and whether that is all of it. */
function tailOf(path: string, bytes: number): { text: string; complete: boolean } {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return { text: '', complete: true };
  }
  try {
    const size = fstatSync(fd).size;
    const n = Math.min(size, bytes);
    const buf = Buffer.alloc(n);
    readSync(fd, buf, 0, n, size - n);
    return { text: buf.toString('utf8'), complete: n === size };
  } finally {
    closeSync(fd);
  }
}
