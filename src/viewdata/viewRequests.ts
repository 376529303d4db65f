import { realpathSync } from 'node:fs';
import type { RolloutSummary } from '../core/rollout/trajectory.js';
import type { RunIndex } from '../store/runReader.js';
import { rolloutSortKeys, type RequestMethod, type RequestParamsOf, type RequestResults, type RolloutRow } from '../webview/protocol.js';
import { applyCuration } from './curate.js';
import { DatasetReader } from './datasetList.js';
import { dashboardView } from './dashboardView.js';
import { evalView } from './evalView.js';
import type { LiveRun, RunSource } from './liveRun.js';
import { RunOutline } from './runOutline.js';
import { RolloutTableIndex, rolloutRow, rowPasses } from './rolloutTable.js';
import { rolloutView } from './rolloutView.js';
import { specView } from './specView.js';
import { runChoicesYielding, runNamesYielding, runsWindow } from './runListing.js';
import { RunGoneError, type RunResolver } from './runRegistry.js';
import { TranscriptIndex } from './transcriptSearch.js';
import { defaultTranscriptCache, TranscriptStore } from './transcriptStore.js';

export type RequestHandlers = { [M in RequestMethod]?: (params: RequestParamsOf<M>) => RequestResults[M] | Promise<RequestResults[M]> };

/**
 * The one data layer behind every viewer: it answers the protocol's requests from the run directories, for the
 * editor's webview panels and for `coevolve view` alike. Hosts differ only in how they name runs (RunResolver)
 * and in how messages travel.
 */
export class ViewData {
  private readonly tableByIndex = new WeakMap<RunIndex, RolloutTableIndex>();
  /** The last table of each run directory, kept while new indexes hold the same rows (a running run re-indexes often). */
  private readonly lastTable = new Map<string, RolloutTableIndex>();
  /** Rows by the summary they were made from: summaries are the event log's objects, kept across re-indexing. */
  private readonly rowOf = new WeakMap<RolloutSummary, RolloutRow>();
  private readonly transcripts = new Map<string, TranscriptIndex>();
  /** Outlines of runs whose dashboard was asked for while nothing had opened them (RunOutline). */
  private readonly outlines = new Map<string, RunOutline>();
  private readonly dataset: DatasetReader;

  /** Where transcript indexes are kept between sessions (defaultTranscriptCache); null: nowhere. */
  private readonly transcriptCache: string | null;

  constructor(readonly runs: RunResolver, options: { transcriptCache?: string | null } = {}) {
    this.dataset = new DatasetReader(runs);
    this.transcriptCache = options.transcriptCache === undefined ? defaultTranscriptCache() : options.transcriptCache;
  }

  /** Every finished rollout of a run as a table row. */
  rows(live: LiveRun): readonly RolloutRow[] {
    return this.table(live).rows;
  }

  /**
   * The table of a run's current index: its rows with their sort orders and facets. Rebuilt only when the rows
   * changed (a rollout finished, an environment file appeared), so sort orders are computed once per key.
   */
  table(live: LiveRun): RolloutTableIndex {
    const run = live.run;
    const cached = this.tableByIndex.get(run);
    if (cached) return cached;
    const rows: RolloutRow[] = [];
    for (const s of run.rollouts.values()) {
      let row = this.rowOf.get(s);
      if (!row) {
        const env = live.env(s.envId);
        row = rolloutRow(s, env);
        if (env) this.rowOf.set(s, row); // without its environment yet: made again until the file is there
      }
      rows.push(row);
    }
    const last = this.lastTable.get(live.dir);
    const table = last && sameRows(last.rows, rows) ? last : new RolloutTableIndex(rows);
    if (table !== last) warmOrders(table);
    this.tableByIndex.set(run, table);
    this.lastTable.set(live.dir, table);
    return table;
  }

  /**
   * What the dashboard of a run reads, brought up to date with its log: the run's LiveRun when one is open (its
   * index is there already), else its outline, which skips the rollout lines the dashboard does not use.
   */
  dashboardSource(ref: string): RunSource {
    const found = this.runs.find?.(ref);
    if (!found) {
      const live = this.runs.get(ref);
      live.refresh();
      return live;
    }
    if (found.live) {
      this.outlines.delete(found.dir);
      found.live.refresh();
      return found.live;
    }
    let outline = this.outlines.get(found.dir);
    if (outline) outline.refresh();
    else this.outlines.set(found.dir, (outline = new RunOutline(found.dir)));
    return outline;
  }

  /**
   * The compared run of a dashboard, or why it is gone: a deleted compared run must not take the run's own dashboard
   * with it. Any other error (a run refused or unreadable) still fails the request, as it did.
   */
  private compareSource(ref: string): RunSource | RunGoneError {
    try {
      return this.dashboardSource(ref);
    } catch (err) {
      if (err instanceof RunGoneError) return err;
      throw err;
    }
  }

  /** The transcript index of a run (bench:editor reads its stats), kept on disk under the run's real path and id. */
  transcriptIndex(live: LiveRun): TranscriptIndex {
    let t = this.transcripts.get(live.dir);
    if (!t) {
      const store = this.transcriptCache === null ? undefined : new TranscriptStore(this.transcriptCache, realDir(live.dir), live.manifest.runId);
      this.transcripts.set(live.dir, (t = new TranscriptIndex(live.dir, store)));
    }
    return t;
  }

  /**
   * Starts the transcript index of a run that is open already (the editor's panel opens its run for the tab's
   * title). A run only outlined (the browser host's dashboard) is not opened for it: opening reads and checks every
   * rollout event of the log in one go, which would hold the next requests; its index starts with the rollout
   * table's first request, and reads the stored index of an earlier session rather than every rollout file.
   */
  private startTranscriptsOf(ref: string): void {
    try {
      const live = this.runs.find ? this.runs.find(ref).live : this.runs.get(ref);
      if (live) this.startTranscripts(live);
    } catch {
      // a run that cannot be opened says so on its own requests
    }
  }

  /** Queues every rollout of the run not indexed yet; the index reads them in background slices. */
  private startTranscripts(live: LiveRun): void {
    try {
      void this.transcriptIndex(live).ensure(this.rows(live));
    } catch {
      // A run that cannot be tabled now reports that on its own requests; a background start must never throw.
    }
  }

  readonly handlers = {
    'rollout/get': (p) => rolloutView(this.runs, p),
    'dashboard/get': (p) => {
      const run = this.dashboardSource(p.runDir);
      const compare = p.compareRunDir ? this.compareSource(p.compareRunDir) : undefined;
      // An open run starts its transcript index ahead of any search: a moment after this answer, so the page draws
      // first.
      setTimeout(() => this.startTranscriptsOf(p.runDir), 250).unref?.();
      const view = dashboardView(run, compare instanceof RunGoneError ? undefined : compare, (d) => this.runs.refOf(d));
      return compare instanceof RunGoneError ? { ...view, compareGone: compare.message } : view;
    },
    'runs/list': () => runChoicesYielding(this.runs),
    'runs/names': () => runNamesYielding(this.runs),
    'runs/page': (p) => runsWindow(this.runs, p),
    'rollouts/table': (p) => {
      const live = this.runs.get(p.runDir);
      const table = this.table(live);
      this.startTranscripts(live); // in case the run was not opened through dashboard/get (the browser host's pages)
      const running = live.run.generations.reduce((n, g) => n + g.inFlight.length, 0);
      return { runDir: p.runDir, runName: live.manifest.name, ...table.query(p), facets: table.facets, running };
    },
    'spec/get': (p) => {
      const run = this.runs.get(p.runDir).run;
      // Only ids the run's index knows become file names.
      if (run.specs.get(p.id)?.kind !== p.kind) throw new Error(`run ${run.manifest.name} has no ${p.kind} "${p.id}"`);
      return specView(run, p.kind, p.id);
    },
    'rollouts/search': (p) => {
      const live = this.runs.get(p.runDir);
      const all = this.rows(live);
      const index = this.transcriptIndex(live);
      // Every rollout of the run is queued (not only the filter's), so the next query with another filter waits on none.
      void index.ensure(all);
      return index.search(all.filter((r) => rowPasses(r, p.filter)), p.query, p.limit ?? 100, p.runDir);
    },
    'dataset/list': (p) => this.dataset.list(p),
    'eval/get': (p) => evalView(this.runs.get(p.runDir).dir, p.runDir),
    /** A write: hosts decide whether to offer it (the browser host only with --allow-curation). */
    'curation/apply': (p) => applyCuration(this.runs, p),
  } satisfies { [M in RequestMethod]: (params: RequestParamsOf<M>) => RequestResults[M] | Promise<RequestResults[M]> };
}

function realDir(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}

function sameRows(a: readonly RolloutRow[], b: readonly RolloutRow[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Computes every sort order in the background, one key per turn of the event loop, so a click never waits on one. */
function warmOrders(table: RolloutTableIndex): void {
  const keys = [...rolloutSortKeys];
  const next = (): void => {
    const key = keys.shift();
    if (!key) return;
    table.order(key);
    setImmediate(next);
  };
  setImmediate(next);
}
