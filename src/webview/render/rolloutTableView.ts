// The flat rollout table of a run (every rollout across generations), sortable and filterable, with full-text
// search over the transcripts and a side-by-side compare of two rollouts. Rows, filters, sorting and search are
// answered by the data layer (rollouts/table, rollouts/search); this element only draws and asks.
// Virtualized: only the rows on screen exist (lit-virtualizer), fetched in windows of `chunk` rows as they come into
// view, so a sort or a filter over 10,000 rollouts asks for and draws one screen of rows.
import '@lit-labs/virtualizer';
// Its default layout, which it imports with import(): bundled here, so a split build does not fetch it as a chunk of its own.
import '@lit-labs/virtualizer/layouts/flow.js';
import type { LitVirtualizer, RangeChangedEvent } from '@lit-labs/virtualizer';
import { html, LitElement, nothing, type TemplateResult } from 'lit';
import type { HostChannel } from '../rpc.js';
import type { RequestParamsOf, RolloutFilter, RolloutRow, RolloutSortKey, RolloutTable, RolloutView, SearchResult } from '../protocol.js';
import { rewardBreakdown } from './rewardPanel.js';
import { scaleFor, valueBar } from './valueBar.js';
import { tagLabel } from '../names.js';

declare global {
  interface Window {
    /**
     * The last table query or search, from the action to its first rows painted (read by bench:editor): how many row
     * elements exist then (virtualized: about a screen) and the id of the first one. `renderedMs`: until the frame
     * that drew them was painted; `nextFrameMs`: until the frame after it began (the measure used before 2026-12-05).
     */
    __coevolveTable?: { action: string; requestMs: number; domMs?: number; renderedMs: number; nextFrameMs: number; rows: number; total: number; firstId?: string; query?: { filter: RolloutFilter; sort: { key: RolloutSortKey; dir: 'asc' | 'desc' } } };
  }
}

/** Rows per rollouts/table request. */
const chunk = 100;

const noRows: RolloutRow[] = [];

/** Runs `f` in a task queued now (a message task: no timer clamping), i.e. after the rendering step that is under way. */
function afterThisFrame(f: () => void): void {
  const channel = new MessageChannel();
  channel.port1.onmessage = () => {
    channel.port1.close();
    f();
  };
  channel.port2.postMessage(null);
}

const nextFrame = (): Promise<void> => new Promise((r) => requestAnimationFrame(() => r()));

/** Whether an element is drawn: in the layout, not hidden by visibility or opacity, and inside the viewport. */
function shownOnScreen(el: Element | null): boolean {
  if (!el || !el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) return false;
  const r = el.getBoundingClientRect();
  return r.height > 0 && r.bottom > 0 && r.top < window.innerHeight && (el.textContent ?? '').trim() !== '';
}

const columns: { key: RolloutSortKey; label: string; right?: boolean }[] = [
  { key: 'generation', label: 'gen', right: true },
  { key: 'envId', label: 'environment' },
  { key: 'userId', label: 'user' },
  { key: 'trial', label: 'rollout', right: true },
  { key: 'status', label: 'outcome' },
  { key: 'reward', label: 'reward', right: true },
  { key: 'steps', label: 'steps', right: true },
  { key: 'durationMs', label: 'time', right: true },
];

export class RolloutTableView extends LitElement {
  static override properties = {
    table: { state: true },
    rowsShown: { state: true },
    filter: { state: true },
    sort: { state: true },
    query: { state: true },
    search: { state: true },
    selected: { state: true },
    compare: { state: true },
    error: { state: true },
    instant: { state: true },
  };

  /** The last answer's total, facets and first window. */
  declare table: RolloutTable | undefined;
  /** One entry per matching row; undefined until its window has been fetched. */
  declare rowsShown: (RolloutRow | undefined)[];
  declare filter: RolloutFilter;
  declare sort: { key: RolloutSortKey; dir: 'asc' | 'desc' };
  declare query: string;
  declare search: SearchResult | undefined;
  /** Rollouts chosen for the side-by-side compare (at most two), by id. */
  declare selected: string[];
  declare compare: [RolloutView, RolloutView] | undefined;
  declare error: string | undefined;
  /**
   * The first screen of a new answer, drawn by lit directly in the update after it arrives, while the virtualizer
   * (which lays rows out in its own frames) is given them after that first paint; cleared as soon as the
   * virtualizer's rows exist (a MutationObserver, before anything else runs), so no row is ever drawn twice.
   */
  declare instant: RolloutRow[] | undefined;
  /** While the first screen is drawn directly the virtualizer holds no rows (the same ids must not exist twice). */
  private holdVirtual = false;
  private handover: MutationObserver | undefined;
  private handoverTimer: ReturnType<typeof setTimeout> | undefined;
  channel!: HostChannel;
  runDir = '';
  /** Human names of environments and users, by id (from the lineage). */
  names = new Map<string, string>();
  private readonly chosenRows = new Map<string, RolloutRow>();
  /** Whether a search is in flight: a query typed meanwhile is sent when it returns (only the latest one). */
  private searching = false;
  /** When the query now in the box was typed (a search is timed from the keystroke, not from when it was sent). */
  private typedAt = 0;
  /** Bumped by every new query: windows answered for an older one are dropped. */
  private epoch = 0;
  private readonly windows = new Map<number, Promise<void>>();
  private visible = { first: 0, last: chunk - 1 };

  constructor() {
    super();
    this.filter = {};
    this.sort = { key: 'generation', dir: 'asc' };
    this.query = '';
    this.selected = [];
    this.rowsShown = [];
  }

  protected override createRenderRoot(): HTMLElement {
    return this;
  }

  /** Sets a filter from outside (the lineage's "Its rollouts") and asks again. */
  applyFilter(filter: RolloutFilter): void {
    this.filter = filter;
    void this.load('filter');
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.handover = new MutationObserver(() => {
      if (this.instant && !this.holdVirtual && this.virtualizer()?.querySelector('.rollout-row[data-id]')) this.endInstant();
    });
    this.handover.observe(this, { childList: true, subtree: true });
    if (!this.table) void this.load('open');
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.handover?.disconnect();
  }

  private endInstant(): void {
    clearTimeout(this.handoverTimer);
    this.instant = undefined;
  }

  /** Rows that fit the table's scroll area (rows are 26 px high, dashboard.css). */
  private screenRows(): number {
    const h = this.virtualizer()?.clientHeight || Math.max(240, window.innerHeight - 260);
    return Math.ceil(h / 26) + 1;
  }

  /** After the first screen was painted: the virtualizer gets the rows and takes over (or after 1 s regardless). */
  private releaseVirtual(epoch: number): void {
    if (epoch !== this.epoch || !this.holdVirtual) return;
    this.holdVirtual = false;
    this.requestUpdate();
    clearTimeout(this.handoverTimer);
    // A virtualizer that draws nothing (its tab hidden) must not leave the first screen standing in its place.
    this.handoverTimer = setTimeout(() => this.endInstant(), 1000);
  }

  private params(offset: number): RequestParamsOf<'rollouts/table'> {
    return { runDir: this.runDir, filter: this.filter, sort: this.sort, offset, limit: chunk };
  }

  /**
   * Asks for the rows on screen (from the top after a sort or filter; where the user is for a live update) and
   * records how long until they are painted (the same path a click takes).
   */
  async load(action: string): Promise<void> {
    const t0 = performance.now();
    const epoch = ++this.epoch;
    const keep = action === 'live' || action === 'more';
    const first = keep ? Math.max(0, this.visible.first) : 0;
    try {
      const w = Math.floor(first / chunk);
      const table = await this.channel.request('rollouts/table', this.params(w * chunk));
      if (epoch !== this.epoch) return;
      const requestMs = performance.now() - t0;
      this.windows.clear();
      this.windows.set(w, Promise.resolve());
      const rows = Array.from<RolloutRow | undefined>({ length: table.total });
      table.rows.forEach((r, i) => (rows[table.offset + i] = r));
      const screen = keep ? [] : rows.slice(0, this.screenRows()).filter((r): r is RolloutRow => r !== undefined);
      this.table = table;
      this.rowsShown = rows;
      this.error = undefined;
      this.holdVirtual = screen.length > 0;
      this.instant = screen.length > 0 ? screen : undefined;
      if (!keep) this.visible = { first: 0, last: chunk - 1 };
      await this.updateComplete;
      const domMs = performance.now() - t0;
      if (!keep) this.virtualizer()?.scrollTo({ top: 0 });
      void this.ensure(this.visible.first, this.visible.last);
      const firstId = rows[first]?.id;
      // Painted means the answer's first row is in the page, visible and on screen (its text drawn), and that frame painted.
      await this.painted(() => firstId === undefined || shownOnScreen(this.querySelector(`.rollout-row[data-id="${CSS.escape(firstId)}"]`)));
      const renderedMs = performance.now() - t0;
      await nextFrame();
      window.__coevolveTable = { action, requestMs, domMs, renderedMs, nextFrameMs: performance.now() - t0, rows: this.querySelectorAll('#rollouts .rollout-row').length, total: table.total, ...(firstId ? { firstId } : {}), query: { filter: this.filter, sort: this.sort } };
      this.releaseVirtual(epoch);
      if (this.query.trim() && !keep) {
        this.typedAt = performance.now();
        void this.runSearch();
      }
    } catch (err) {
      this.error = err instanceof Error ? err.message : String(err);
    }
  }

  /**
   * Resolves once the first frame in which `ready()` holds has been painted: `ready` is checked in each frame's
   * animation callbacks, before that frame's style, layout and paint; a task queued from there runs after the frame's
   * rendering is done (the frame's paint committed), so nothing waits for the frame after it.
   */
  private painted(ready: () => boolean): Promise<void> {
    const until = performance.now() + 10_000;
    return new Promise((resolve) => {
      const tick = (): void => {
        if (ready() || performance.now() > until) afterThisFrame(resolve);
        else requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    });
  }

  private virtualizer(): LitVirtualizer | null {
    return this.querySelector<LitVirtualizer>('lit-virtualizer.rollout-rows');
  }

  /** Fetches the windows covering rows first..last that are not fetched yet (for the current query). */
  private async ensure(first: number, last: number): Promise<void> {
    const total = this.table?.total ?? 0;
    const work: Promise<void>[] = [];
    for (let w = Math.floor(first / chunk); w <= Math.floor(Math.max(first, last) / chunk) && w * chunk < total; w++) {
      let p = this.windows.get(w);
      if (!p) this.windows.set(w, (p = this.fetchWindow(w, this.epoch)));
      work.push(p);
    }
    await Promise.all(work);
  }

  private async fetchWindow(w: number, epoch: number): Promise<void> {
    try {
      const page = await this.channel.request('rollouts/table', this.params(w * chunk));
      if (epoch !== this.epoch) return;
      if (page.total !== this.table?.total) {
        void this.load('live'); // rows came or went meanwhile: every window is out of place
        return;
      }
      const rows = [...this.rowsShown];
      page.rows.forEach((r, i) => (rows[page.offset + i] = r));
      this.rowsShown = rows;
    } catch (err) {
      this.windows.delete(w);
      this.error = err instanceof Error ? err.message : String(err);
    }
  }

  private onRange(e: RangeChangedEvent): void {
    // A virtualizer laid out in a hidden tab reports an empty range (first = last = -1): nothing is on screen, and
    // keeping it would make the next live update ask for the window before row 0 (a refused negative offset).
    if (e.first < 0 || e.last < e.first) return;
    this.visible = { first: e.first, last: e.last };
    void this.ensure(e.first, e.last);
  }

  /**
   * Searches for what the box holds now. No typing pause: the query is sent at once, and while one search is in
   * flight only the latest query typed meanwhile is sent when it returns (a host answers one request at a time).
   * Timed from the keystroke that made the query, so waiting behind an earlier search counts.
   */
  private async runSearch(): Promise<void> {
    if (this.searching) return;
    this.searching = true;
    try {
      for (let q = this.query.trim(), sent: string | undefined; q !== sent; q = this.query.trim()) {
        sent = q;
        await this.searchOnce(q, this.typedAt);
      }
    } finally {
      this.searching = false;
    }
  }

  private async searchOnce(q: string, t0: number): Promise<void> {
    if (!q) {
      this.search = undefined;
      return;
    }
    try {
      const search = await this.channel.request('rollouts/search', { runDir: this.runDir, query: q, filter: this.filter, limit: 100 });
      if (this.query.trim() !== q) return; // typed on meanwhile: the newer query is sent next
      const requestMs = performance.now() - t0;
      this.search = search;
      await this.updateComplete;
      await this.painted(() => true);
      const renderedMs = performance.now() - t0;
      await nextFrame();
      window.__coevolveTable = { action: 'search', requestMs, renderedMs, nextFrameMs: performance.now() - t0, rows: this.querySelectorAll('#search-hits li').length, total: search.total, ...(search.hits[0] ? { firstId: search.hits[0].row.id } : {}) };
    } catch (err) {
      this.error = err instanceof Error ? err.message : String(err);
    }
  }

  private sortBy(key: RolloutSortKey): void {
    // The same column again turns its order round; a new one starts highest reward first, else ascending.
    const dir = this.sort.key === key ? (this.sort.dir === 'asc' ? 'desc' : 'asc') : key === 'reward' ? 'desc' : 'asc';
    this.sort = { key, dir };
    void this.load('sort');
  }

  private setFilter(change: Partial<RolloutFilter>): void {
    const next: RolloutFilter = { ...this.filter, ...change };
    for (const [k, v] of Object.entries(next)) if (v === undefined || (Array.isArray(v) && v.length === 0)) delete (next as Record<string, unknown>)[k];
    this.filter = next;
    void this.load('filter');
  }

  private open(row: RolloutRow, step?: number): void {
    this.channel.command('rollout/open', { runDir: this.runDir, generation: row.generation, rolloutId: row.id, ...(step ? { step } : {}) });
  }

  private toggle(row: RolloutRow): void {
    const has = this.selected.includes(row.id);
    if (has) this.chosenRows.delete(row.id);
    else this.chosenRows.set(row.id, row);
    this.selected = has ? this.selected.filter((x) => x !== row.id) : [...this.selected, row.id].slice(-2);
    for (const id of [...this.chosenRows.keys()]) if (!this.selected.includes(id)) this.chosenRows.delete(id);
  }

  private async showCompare(): Promise<void> {
    const rows = this.selected.map((id) => this.chosenRows.get(id)).filter((r): r is RolloutRow => r !== undefined);
    if (rows.length !== 2) return;
    try {
      const [a, b] = await Promise.all(rows.map((r) => this.channel.request('rollout/get', { runDir: this.runDir, generation: r.generation, rolloutId: r.id })));
      this.compare = [a as RolloutView, b as RolloutView];
      await this.updateComplete;
      this.querySelector<HTMLElement>('#rollout-compare')?.scrollIntoView({ block: 'start' });
    } catch (err) {
      this.error = err instanceof Error ? err.message : String(err);
    }
  }

  private name(id: string): string {
    return this.names.get(id) ?? id;
  }

  override render(): TemplateResult {
    const t = this.table;
    return html`<section class="rollout-table" id="rollout-table">
      ${this.filters(t)}
      ${this.error ? html`<p class="bad" id="table-problem">${this.error}</p>` : nothing}
      ${this.query.trim() ? this.searchResults() : t ? this.rows(t) : html`<p class="dim">Loading rollouts…</p>`}
      ${this.compare ? this.compareView(this.compare) : nothing}
    </section>`;
  }

  private filters(t: RolloutTable | undefined): TemplateResult {
    const f = this.filter;
    const facets = t?.facets;
    const select = (id: string, label: string, options: string[], value: string | undefined, set: (v: string) => void, shown: (o: string) => string = String): TemplateResult => html`<label class="filter">${label}
      <select id=${id} @change=${(e: Event) => set((e.target as HTMLSelectElement).value)}>
        <option value="" ?selected=${!value}>any</option>
        ${options.map((o) => html`<option value=${o} ?selected=${o === value}>${shown(o)}</option>`)}
      </select></label>`;
    return html`<div class="table-filters" role="search" aria-label="Filter rollouts">
      <label class="filter">Search transcripts <input id="table-search" type="search" placeholder="text in any step" .value=${this.query} @input=${(e: Event) => {
        this.query = (e.target as HTMLInputElement).value;
        this.typedAt = performance.now();
        void this.runSearch();
      }}></label>
      ${select('filter-outcome', 'outcome', ['passed', 'failed'], f.outcome, (v) => this.setFilter({ outcome: (v || undefined) as RolloutFilter['outcome'] }))}
      ${select('filter-status', 'status', ['terminated', 'truncated', 'error'], f.statuses?.[0], (v) => this.setFilter({ statuses: v ? [v as 'terminated'] : undefined }))}
      ${select('filter-generation', 'generation', (facets?.generations ?? []).map(String), f.generations?.[0]?.toString(), (v) => this.setFilter({ generations: v ? [Number(v)] : undefined }))}
      ${select('filter-family', 'family', facets?.families ?? [], f.families?.[0], (v) => this.setFilter({ families: v ? [v] : undefined }))}
      ${select('filter-user', 'user', facets?.users ?? [], f.users?.[0], (v) => this.setFilter({ users: v ? [v] : undefined }))}
      ${select('filter-tag', 'tag', facets?.tags ?? [], f.tags?.[0], (v) => this.setFilter({ tags: v ? [v] : undefined }), tagLabel)}
      <label class="filter">reward ≥ <input id="filter-min-reward" type="number" step="0.1" .value=${f.minReward?.toString() ?? ''} @change=${(e: Event) => {
        const raw = (e.target as HTMLInputElement).value;
        this.setFilter({ minReward: raw === '' ? undefined : Number(raw) });
      }}></label>
      ${f.envIds?.length ? html`<span class="tag" id="filter-env">environment ${this.name(f.envIds[0] as string)} <button class="link" aria-label="Remove this filter" @click=${() => this.setFilter({ envIds: undefined })}>×</button></span>` : nothing}
      <span class="spacer"></span>
      <vscode-button id="compare-selected" icon="split-horizontal" ?disabled=${this.selected.length !== 2} @click=${() => void this.showCompare()} title="Select two rollouts (space on a row), then compare them side by side">Compare ${this.selected.length}/2</vscode-button>
    </div>`;
  }

  private rows(t: RolloutTable): TemplateResult {
    const range = t.facets.rewardRange;
    const scale = scaleFor(range ? [range.lo, range.hi] : t.rows.map((r) => r.reward));
    const head = (c: (typeof columns)[number]): TemplateResult => {
      const sorted = this.sort.key === c.key;
      return html`<span role="columnheader" class=${c.right ? 'num' : ''} aria-sort=${sorted ? (this.sort.dir === 'asc' ? 'ascending' : 'descending') : 'none'}>
        <button class="sort" data-sort=${c.key} @click=${() => this.sortBy(c.key)}>${c.label}${sorted ? (this.sort.dir === 'asc' ? ' ▲' : ' ▼') : ''}</button></span>`;
    };
    return html`<p class="dim" id="table-count">${t.total} rollout${t.total === 1 ? '' : 's'}${t.running ? ` · ${t.running} still running` : ''} · Enter opens a rollout, space selects it for comparison</p>
      <div class="rollout-grid" id="rollouts" role="table" aria-rowcount=${t.total + 1}>
        <div class="rollout-head" role="row"><span role="columnheader"><span class="sr-only">select</span></span>${columns.map(head)}<span role="columnheader">tags</span></div>
        ${t.total === 0 ? html`<p class="dim" id="no-rows">No rollout matches these filters.</p>` : html`<div class="rollout-body">
          <lit-virtualizer class="rollout-rows" role="rowgroup" scroller .items=${this.holdVirtual ? noRows : this.rowsShown}
            .renderItem=${(r: RolloutRow | undefined, i: number) => this.row(r, i, scale)} @rangeChanged=${(e: RangeChangedEvent) => this.onRange(e)}></lit-virtualizer>
          ${this.instant ? html`<div class="rollout-rows-instant" role="rowgroup">${this.instant.map((r, i) => this.row(r, i, scale))}</div>` : nothing}
        </div>`}
      </div>`;
  }

  private row(r: RolloutRow | undefined, i: number, scale: { lo: number; hi: number }): TemplateResult {
    if (!r) return html`<div class="rollout-row pending" role="row" aria-rowindex=${i + 2}><span class="cell dim" role="cell">…</span></div>`;
    const chosen = this.selected.includes(r.id);
    const outcome = r.status === 'error' ? 'error' : r.success ? 'passed' : r.status === 'truncated' ? 'truncated' : 'failed';
    return html`<div role="row" tabindex="0" class="rollout-row ${chosen ? 'chosen' : ''}" data-id=${r.id} data-index=${i} aria-rowindex=${i + 2} aria-selected=${chosen ? 'true' : 'false'}
      @keydown=${(e: KeyboardEvent) => {
        if (e.target !== e.currentTarget) return;
        if (e.key === 'Enter') this.open(r);
        if (e.key === ' ') {
          e.preventDefault();
          this.toggle(r);
        }
      }} @dblclick=${() => this.open(r)}>
      <span class="cell" role="cell"><input type="checkbox" .checked=${chosen} aria-label=${`select ${r.id}`} @change=${() => this.toggle(r)}></span>
      <span class="cell num" role="cell">${r.generation}</span>
      <span class="cell" role="cell" title=${r.envId}>${this.name(r.envId)}</span>
      <span class="cell" role="cell" title=${r.userId}>${this.name(r.userId)}</span>
      <span class="cell num" role="cell"><button class="link" @click=${() => this.open(r)} title=${`open ${r.id}`}>${r.trial}${r.hint ? ' (hint)' : ''}</button></span>
      <span class="cell outcome outcome-${outcome === 'truncated' ? 'failed' : outcome}" role="cell">${outcome}</span>
      <span class="cell num reward-cell" role="cell"><span class="reward-num">${r.reward.toFixed(2)}</span>${valueBar(r.reward, scale, `reward of ${r.id}`)}</span>
      <span class="cell num" role="cell">${r.steps}</span>
      <span class="cell num" role="cell">${(r.durationMs / 1000).toFixed(1)} s</span>
      <span class="cell" role="cell">${r.tags.map((x) => html`<span class="tag" title=${x}>${tagLabel(x)}</span>`)}</span>
    </div>`;
  }

  private searchResults(): TemplateResult {
    const s = this.search;
    if (!s) return html`<p class="dim" id="search-count">Searching…</p>`;
    return html`<p class="dim" id="search-count">"${s.query}" in ${s.total} of ${s.searched} rollouts${s.total > s.hits.length ? `, first ${s.hits.length} shown` : ''}</p>
      <ul class="search-hits" id="search-hits">${s.hits.map((h) => html`<li>
        <input type="checkbox" .checked=${this.selected.includes(h.row.id)} aria-label=${`select ${h.row.id}`} @change=${() => this.toggle(h.row)}>
        <button class="link" @click=${() => this.open(h.row, h.stepId)}>g${h.row.generation} · ${this.name(h.row.envId)} × ${this.name(h.row.userId)} · rollout ${h.row.trial}</button>
        <span class="dim">step ${h.stepId} (${h.source}) · ${h.matches} matching step${h.matches === 1 ? '' : 's'}</span>
        <div class="snippet">${h.snippet}</div></li>`)}</ul>`;
  }

  private compareView([a, b]: [RolloutView, RolloutView]): TemplateResult {
    const side = (v: RolloutView): TemplateResult => {
      const r = v.record;
      return html`<div class="compare-side" data-id=${v.ref.rolloutId}>
        <h3>${v.pairLabel ? `${v.pairLabel.env} × ${v.pairLabel.user}` : v.ref.rolloutId}</h3>
        <p class="dim"><code>${v.ref.rolloutId}</code> · generation ${v.ref.generation}${r ? ` · ${r.success ? 'passed' : 'failed'} · ${r.steps.length} steps · ${(r.durationMs / 1000).toFixed(1)} s` : ' · running'}</p>
        ${r ? rewardBreakdown(r, v.rewardWeights, v.rubric) : nothing}
        ${r ? html`<h3>Transcript</h3><ol class="compare-steps">${r.steps.map((s) => html`<li class="step-mini ${s.source}"><b>${s.source}</b> ${s.message.slice(0, 400)}${(s.tool_calls ?? []).map((c) => html`<code class="mini-call">${c.function_name === 'run_command' ? `$ ${String(c.arguments['command'] ?? '')}` : `${c.function_name}(${JSON.stringify(c.arguments).slice(0, 200)})`}</code>`)}</li>`)}</ol>` : nothing}
      </div>`;
    };
    return html`<section class="rollout-compare" id="rollout-compare" aria-label="Two rollouts side by side">
      <h2>Side by side <button class="link" @click=${() => (this.compare = undefined)}>close</button></h2>
      <div class="compare-columns">${side(a)}${side(b)}</div>
    </section>`;
  }
}

customElements.define('coevolve-rollout-table', RolloutTableView);
