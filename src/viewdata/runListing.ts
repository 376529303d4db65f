import { closeSync, existsSync, lstatSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { GenerationMetrics } from '../core/metrics/generationMetrics.js';
import type { RunManifest } from '../core/ports/runStore.js';
import { runLayout } from '../store/layout.js';
import { isRunAlive, readGenerationMetrics, type RunStatus } from '../store/runReader.js';
import type { RequestParamsOf, RunChoice, RunsWindow } from '../webview/protocol.js';
import type { RunResolver } from './runRegistry.js';

interface Cached {
  stamp: string;
  facts: Omit<RunChoice, 'runDir' | 'label' | 'description'>;
}

const cache = new Map<string, Cached>();
const tailBytes = 64 * 1024;

/**
 * A run as one row of a runs list, from what is cheap to read: the manifest, the names in generations/, the last
 * generation's stored metrics and the last 64 KiB of events.jsonl (for the status). No event log is read whole, so
 * a list of a thousand runs costs a few thousand small reads; rows are cached until the run's files change.
 */
export function runChoice(dir: string, manifest: RunManifest, ref: string): RunChoice {
  const stamp = stampOf(dir);
  let hit = cache.get(dir);
  // A running run can stop without writing (its process died): its status is checked every time.
  if (!hit || hit.stamp !== stamp || hit.facts.status === 'running') {
    hit = { stamp, facts: factsOf(dir, manifest) };
    cache.set(dir, hit);
  }
  const f = hit.facts;
  return { runDir: ref, label: manifest.name, description: `${manifest.startedAt.replace('T', ' ').slice(0, 16)} · ${manifest.runId}`, ...f };
}

/** The runs a host lists (the dashboard's compare picker, the browser's runs page), newest first. */
export function runChoices(runs: RunResolver): RunChoice[] {
  return runs.listed().map((r) => runChoice(r.dir, r.manifest, runs.refOf(r.dir)));
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
  let last: GenerationMetrics | undefined;
  for (const g of gens) {
    const m = plainMetrics(dir, g);
    if (!m) continue;
    rollouts += m.rollouts;
    last = m;
  }
  return {
    name: manifest.name, runId: manifest.runId, startedAt: manifest.startedAt, status: statusOf(dir), generations: gens.length, rollouts,
    ...(last ? { lastSuccessRate: last.successRate } : {}),
  };
}

/** A generation's stored metrics if its file is a regular file that parses; a link or a broken file is skipped. */
function plainMetrics(dir: string, generation: number): GenerationMetrics | undefined {
  try {
    if (!lstatSync(runLayout.generationMetrics(dir, generation)).isFile()) return undefined;
    return readGenerationMetrics<GenerationMetrics>(dir, generation);
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
  const text = tailOf(runLayout.events(dir));
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

function tailOf(path: string): string {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return '';
  }
  try {
    const size = statSync(path).size;
    const n = Math.min(size, tailBytes);
    const buf = Buffer.alloc(n);
    readSync(fd, buf, 0, n, size - n);
    return buf.toString('utf8');
  } finally {
    closeSync(fd);
  }
}
