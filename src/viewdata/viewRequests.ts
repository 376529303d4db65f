import type { RunIndex } from '../store/runReader.js';
import type { RequestMethod, RequestParamsOf, RequestResults, RolloutRow } from '../webview/protocol.js';
import { applyCuration } from './curate.js';
import { DatasetReader } from './datasetList.js';
import { dashboardView } from './dashboardView.js';
import { evalView } from './evalView.js';
import type { LiveRun } from './liveRun.js';
import { facetsOf, queryRolloutTable, rolloutRow, rowPasses } from './rolloutTable.js';
import { rolloutView } from './rolloutView.js';
import { specView } from './specView.js';
import { runChoices, runsWindow } from './runListing.js';
import type { RunResolver } from './runRegistry.js';
import { TranscriptIndex } from './transcriptSearch.js';

export type RequestHandlers = { [M in RequestMethod]?: (params: RequestParamsOf<M>) => RequestResults[M] | Promise<RequestResults[M]> };

/**
 * The one data layer behind every viewer: it answers the protocol's requests from the run directories, for the
 * editor's webview panels and for `coevolve view` alike. Hosts differ only in how they name runs (RunResolver)
 * and in how messages travel.
 */
export class ViewData {
  private readonly rowsByIndex = new WeakMap<RunIndex, RolloutRow[]>();
  private readonly transcripts = new Map<string, TranscriptIndex>();
  private readonly dataset: DatasetReader;

  constructor(readonly runs: RunResolver) {
    this.dataset = new DatasetReader(runs);
  }

  /** Every finished rollout of a run as a table row (cached per index: the index is rebuilt when events arrive). */
  rows(live: LiveRun): RolloutRow[] {
    const run = live.run;
    let rows = this.rowsByIndex.get(run);
    if (!rows) {
      rows = [...run.rollouts.values()].map((s) => rolloutRow(s, live.env(s.envId)));
      this.rowsByIndex.set(run, rows);
    }
    return rows;
  }

  private transcriptIndex(dir: string): TranscriptIndex {
    let t = this.transcripts.get(dir);
    if (!t) this.transcripts.set(dir, (t = new TranscriptIndex(dir)));
    return t;
  }

  readonly handlers = {
    'rollout/get': (p) => rolloutView(this.runs, p),
    'dashboard/get': (p) => {
      const run = this.runs.get(p.runDir);
      run.refresh();
      const compare = p.compareRunDir ? this.runs.get(p.compareRunDir) : undefined;
      compare?.refresh();
      return dashboardView(run.run, compare?.run, (d) => this.runs.refOf(d));
    },
    'runs/list': () => runChoices(this.runs),
    'runs/page': (p) => runsWindow(this.runs, p),
    'rollouts/table': (p) => {
      const live = this.runs.get(p.runDir);
      const rows = this.rows(live);
      const page = queryRolloutTable(rows, p);
      const running = live.run.generations.reduce((n, g) => n + g.inFlight.length, 0);
      return { runDir: p.runDir, runName: live.manifest.name, ...page, facets: facetsOf(rows), running };
    },
    'spec/get': (p) => {
      const run = this.runs.get(p.runDir).run;
      // Only ids the run's index knows become file names.
      if (run.specs.get(p.id)?.kind !== p.kind) throw new Error(`run ${run.manifest.name} has no ${p.kind} "${p.id}"`);
      return specView(run, p.kind, p.id);
    },
    'rollouts/search': (p) => {
      const live = this.runs.get(p.runDir);
      const rows = this.rows(live).filter((r) => rowPasses(r, p.filter));
      return this.transcriptIndex(live.dir).search(rows, p.query, p.limit ?? 100, p.runDir);
    },
    'dataset/list': (p) => this.dataset.list(p),
    'eval/get': (p) => evalView(this.runs.get(p.runDir).dir, p.runDir),
    /** A write: hosts decide whether to offer it (the browser host only with --allow-curation). */
    'curation/apply': (p) => applyCuration(this.runs, p),
  } satisfies { [M in RequestMethod]: (params: RequestParamsOf<M>) => RequestResults[M] | Promise<RequestResults[M]> };
}
