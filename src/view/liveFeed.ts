import { lstatSync, statSync } from 'node:fs';
import type { RunEvent } from '../core/ports/runStore.js';
import { runLayout } from '../store/layout.js';
import type { HostMessage } from '../webview/protocol.js';
import type { ServedRuns } from './servedRuns.js';

export interface FeedItem {
  /** `<epoch>.<seq>`: the epoch changes when the server restarts, so a stale Last-Event-ID means "resync". */
  id: string;
  message: HostMessage;
}

/**
 * The live stream behind /api/events. Opened runs are tailed with the same reader the editor's Runs tree uses
 * (LiveRun over EventTail: only appended bytes are read); each batch of new events becomes a `run/changed`
 * notification and each finished rollout a `rollout/changed`; a change of a listed run's curation.jsonl becomes a
 * `dataset/changed`. Every other listed run is watched by the size of its event log, so the runs list hears of new
 * and growing runs too. The last `keep` notifications stay, so a client
 * that reconnects with Last-Event-ID gets what it missed; one that missed more is told every run changed.
 */
export class LiveFeed {
  private readonly epoch = Date.now().toString(36);
  private seq = 0;
  private readonly items: FeedItem[] = [];
  private readonly listeners = new Set<(item: FeedItem) => void>();
  private readonly sizes = new Map<string, number>();
  private readonly curations = new Map<string, string>();
  private timers: NodeJS.Timeout[] = [];
  private scanning = false;

  constructor(private readonly runs: ServedRuns, private readonly keep = 2000) {
    runs.registry.onDidChange((dir, events) => this.onEvents(dir, events));
  }

  start(tailMs = 500, listMs = 2000): void {
    this.timers.push(setInterval(() => this.tail(), tailMs), setInterval(() => void this.scanListing(), listMs));
    this.scanSlice(this.runs.listed());
  }

  stop(): void {
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    this.listeners.clear();
  }

  /** Reads what opened runs appended (their listeners turn it into notifications). */
  tail(): void {
    for (const { dir } of this.runs.opened()) this.runs.registry.refresh(dir);
  }

  private onEvents(dir: string, events: RunEvent[]): void {
    if (events.length === 0) return;
    const runDir = this.runs.refOf(dir);
    this.sizes.set(dir, sizeOf(dir));
    for (const e of events) {
      if (e.type === 'rollout.finished') this.push({ kind: 'notification', method: 'rollout/changed', params: { runDir, generation: e.summary.generation, rolloutId: e.summary.id } });
    }
    this.push({ kind: 'notification', method: 'run/changed', params: { runDir } });
  }

  /**
   * Checks every listed run in slices of `slice` runs that give the event loop back between them: a thousand runs
   * are two thousand stats (a few hundred ms under load), and one block of them every two seconds held whatever page
   * request arrived meanwhile. A scan still under way when the timer fires again is not started twice.
   */
  private async scanListing(slice = 50): Promise<void> {
    if (this.scanning) return;
    this.scanning = true;
    try {
      const listed = this.runs.listed();
      for (let i = 0; i < listed.length; i += slice) {
        if (i > 0) await new Promise<void>((r) => setImmediate(r));
        if (this.timers.length === 0) return; // stopped
        this.scanSlice(listed.slice(i, i + slice));
      }
    } finally {
      this.scanning = false;
    }
  }

  private scanSlice(runs: readonly { dir: string }[]): void {
    const opened = new Set(this.runs.opened().map((o) => o.dir));
    for (const { dir } of runs) {
      const curation = stampOf(runLayout.curation(dir));
      const curationBefore = this.curations.get(dir);
      this.curations.set(dir, curation);
      // The first scan only records what is there; a later change of curation.jsonl is a dataset change.
      if (curationBefore !== undefined && curationBefore !== curation) this.push({ kind: 'notification', method: 'dataset/changed', params: { runDir: this.runs.refOf(dir) } });
      if (opened.has(dir)) continue;
      const size = sizeOf(dir);
      const before = this.sizes.get(dir);
      this.sizes.set(dir, size);
      if (before !== size) this.push({ kind: 'notification', method: 'run/changed', params: { runDir: this.runs.refOf(dir) } });
    }
  }

  private push(message: HostMessage): void {
    const item = { id: `${this.epoch}.${++this.seq}`, message };
    this.items.push(item);
    if (this.items.length > this.keep) this.items.splice(0, this.items.length - this.keep);
    for (const l of this.listeners) l(item);
  }

  /** Notifications after `lastEventId`; a resync (every run changed) when it is from another epoch or too old. */
  since(lastEventId: string | undefined): FeedItem[] {
    if (!lastEventId) return [];
    const [epoch, seqText] = lastEventId.split('.');
    const seq = Number(seqText);
    const oldest = this.items[0] ? Number(this.items[0].id.split('.')[1]) : this.seq + 1;
    if (epoch === this.epoch && Number.isInteger(seq) && seq + 1 >= oldest) return this.items.filter((i) => Number(i.id.split('.')[1]) > seq);
    return this.runs.listed().map((r) => ({ id: `${this.epoch}.${this.seq}`, message: { kind: 'notification', method: 'run/changed', params: { runDir: this.runs.refOf(r.dir) } } }));
  }

  subscribe(listener: (item: FeedItem) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }
}

/** Size and modification time of a file (a link is not followed: a link's own stamp is enough to see a change). */
function stampOf(path: string): string {
  try {
    const st = lstatSync(path);
    return `${st.size}:${st.mtimeMs}`;
  } catch {
    return '';
  }
}

function sizeOf(dir: string): number {
  try {
    return statSync(runLayout.events(dir)).size;
  } catch {
    return -1;
  }
}
