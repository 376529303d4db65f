// The browser host's runs list: every run the server (or the bundle) has, newest first, with status, generations,
// rollouts and the last generation's success; live while runs write (a run/changed notification asks again).
// Virtualized: only the rows on screen are drawn (lit-virtualizer), and rows are fetched in windows of `chunk`
// (runs/page) as they come into view, so a list of thousands of runs shows its first screen at once.
import '../render/cspWatch.js';
import '@lit-labs/virtualizer';
import type { RangeChangedEvent } from '@lit-labs/virtualizer';
import { html, LitElement, nothing, type TemplateResult } from 'lit';
import type { RunChoice } from '../protocol.js';
import { HostChannel } from '../rpc.js';
import { browserLinks } from '../browserLinks.js';
import { runsPageChunk } from '../firstRequest.js';
import '../styles/common.css';
import './pages.css';

const pct = (x: number | undefined): string => (x === undefined ? '–' : `${Math.round(x * 100)}%`);
/** Rows per runs/page request: the first screen and then some (each row costs its run's few reads when cold). */
const chunk = runsPageChunk;

export class RunsPage extends LitElement {
  static override properties = { rows: { state: true }, total: { state: true }, error: { state: true } };
  /** One entry per run; undefined until its window has been fetched. */
  declare rows: (RunChoice | undefined)[];
  declare total: number | undefined;
  declare error: string | undefined;
  private channel!: HostChannel;
  /** Windows fetched (or being fetched) since the last change, by index. */
  private readonly windows = new Map<number, Promise<void>>();
  private visible = { first: 0, last: chunk - 1 };
  private refreshing = false;
  private changedAgain = false;

  constructor() {
    super();
    this.rows = [];
  }

  protected override createRenderRoot(): HTMLElement {
    return this;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.channel = new HostChannel();
    this.channel.onNotification((method) => {
      if (method === 'run/changed') void this.refresh();
    });
    this.channel.ready();
    void this.ensure(0, chunk - 1);
  }

  /** Fetches the windows covering rows first..last that are not fetched yet. */
  private async ensure(first: number, last: number): Promise<void> {
    const work: Promise<void>[] = [];
    for (let w = Math.floor(first / chunk); w <= Math.floor(Math.max(first, last) / chunk); w++) {
      if (this.total !== undefined && w * chunk >= this.total) break;
      let p = this.windows.get(w);
      if (!p) this.windows.set(w, (p = this.fetchWindow(w)));
      work.push(p);
    }
    await Promise.all(work);
  }

  private async fetchWindow(w: number): Promise<void> {
    try {
      const page = await this.channel.request('runs/page', { offset: w * chunk, limit: chunk });
      const rows = this.total === page.total ? [...this.rows] : Array.from<RunChoice | undefined>({ length: page.total });
      if (this.total !== page.total) {
        // Runs were added or removed: every other window is out of place now.
        for (const k of [...this.windows.keys()]) if (k !== w) this.windows.delete(k);
      }
      page.runs.forEach((r, i) => (rows[page.offset + i] = r));
      this.total = page.total;
      this.rows = rows;
      this.error = undefined;
    } catch (err) {
      this.windows.delete(w);
      this.error = err instanceof Error ? err.message : String(err);
    }
  }

  /** A run changed: fetch the windows on screen again (the others are fetched when they come into view). */
  private async refresh(): Promise<void> {
    if (this.refreshing) {
      this.changedAgain = true;
      return;
    }
    this.refreshing = true;
    try {
      do {
        this.changedAgain = false;
        this.windows.clear();
        await this.ensure(this.visible.first, this.visible.last);
      } while (this.changedAgain);
    } finally {
      this.refreshing = false;
    }
  }

  private onRange(e: RangeChangedEvent): void {
    // Before its first layout the virtualizer reports an empty range (first = last = -1): nothing is on screen. Taken
    // as a range it asked for the window at offset -50, which the host refuses: a list of a few runs then showed
    // "bad params for runs/page" under its rows (the rollout table had the same fault, rolloutTableView.onRange).
    if (e.first < 0 || e.last < e.first) return;
    this.visible = { first: e.first, last: e.last };
    void this.ensure(e.first, e.last);
  }

  override render(): TemplateResult {
    if (this.error && this.total === undefined) return html`<div class="problem" id="problem">${this.error}</div>`;
    const total = this.total;
    if (total === undefined) return html`<div class="loading">Loading runs…</div>`;
    return html`<div class="page">
      <h1>Runs <span class="dim" id="run-count">${total}</span></h1>
      ${this.error ? html`<p class="problem" id="problem">${this.error}</p>` : nothing}
      ${total === 0 ? html`<p class="dim" id="no-runs">No run directories here yet.</p>` : nothing}
      <div class="run-grid" id="runs-table" role="table" aria-rowcount=${total + 1}>
        <div class="run-head" role="row"><span role="columnheader">run</span><span role="columnheader">status</span><span role="columnheader">started</span><span role="columnheader" class="num">generations</span><span role="columnheader" class="num">rollouts</span><span role="columnheader" class="num">last success</span><span role="columnheader">id</span><span role="columnheader"></span></div>
        <lit-virtualizer class="run-rows" role="rowgroup" .items=${this.rows} .renderItem=${(r: RunChoice | undefined, i: number) => this.row(r, i)}
          @rangeChanged=${(e: RangeChangedEvent) => this.onRange(e)}></lit-virtualizer>
      </div>
    </div>`;
  }

  private row(r: RunChoice | undefined, i: number): TemplateResult {
    if (!r) return html`<div class="run-row pending" role="row" aria-rowindex=${i + 2}><span class="cell dim" role="cell">…</span></div>`;
    return html`<div class="run-row" role="row" aria-rowindex=${i + 2} data-run=${r.runDir}>
      <span class="cell" role="cell"><a class="run-link" href=${browserLinks.run(r.runDir)}>${r.name}</a></span>
      <span class=${`cell status-${r.status}`} role="cell">${r.status}</span>
      <span class="cell" role="cell">${r.startedAt.replace('T', ' ').slice(0, 16)}</span>
      <span class="cell num" role="cell">${r.generations}</span>
      <span class="cell num" role="cell">${r.rollouts}</span>
      <span class="cell num" role="cell">${pct(r.lastSuccessRate)}</span>
      <span class="cell dim" role="cell">${r.runId}</span>
      <span class="cell" role="cell"><a href=${browserLinks.dashboard(r.runDir)}>dashboard</a></span>
    </div>`;
  }
}

customElements.define('coevolve-runs-page', RunsPage);
