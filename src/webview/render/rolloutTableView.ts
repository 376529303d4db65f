// The flat rollout table of a run (every rollout across generations), sortable and filterable, with full-text
// search over the transcripts and a side-by-side compare of two rollouts. Rows, filters, sorting and search are
// answered by the data layer (rollouts/table, rollouts/search); this element only draws and asks.
import { html, LitElement, nothing, type TemplateResult } from 'lit';
import type { HostChannel } from '../rpc.js';
import type { RolloutFilter, RolloutRow, RolloutSortKey, RolloutTable, RolloutView, SearchResult } from '../protocol.js';
import { rewardBreakdown } from './rewardPanel.js';
import { scaleFor, valueBar } from './valueBar.js';

declare global {
  interface Window {
    /** The last table query, from the action to the rows painted (read by bench:editor). */
    __coevolveTable?: { action: string; requestMs: number; renderedMs: number; rows: number; total: number };
  }
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
    filter: { state: true },
    sort: { state: true },
    query: { state: true },
    search: { state: true },
    selected: { state: true },
    compare: { state: true },
    error: { state: true },
  };

  declare table: RolloutTable | undefined;
  declare filter: RolloutFilter;
  declare sort: { key: RolloutSortKey; dir: 'asc' | 'desc' };
  declare query: string;
  declare search: SearchResult | undefined;
  declare selected: string[];
  declare compare: [RolloutView, RolloutView] | undefined;
  declare error: string | undefined;
  channel!: HostChannel;
  runDir = '';
  /** Human names of environments and users, by id (from the lineage). */
  names = new Map<string, string>();
  private limit = 200;
  private searchTimer: ReturnType<typeof setTimeout> | undefined;

  constructor() {
    super();
    this.filter = {};
    this.sort = { key: 'generation', dir: 'asc' };
    this.query = '';
    this.selected = [];
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
    if (!this.table) void this.load('open');
  }

  /** Asks for the page and records how long until its rows are painted (the same path a click takes). */
  async load(action: string): Promise<void> {
    const t0 = performance.now();
    try {
      const table = await this.channel.request('rollouts/table', { runDir: this.runDir, filter: this.filter, sort: this.sort, limit: this.limit });
      const requestMs = performance.now() - t0;
      this.table = table;
      this.error = undefined;
      await this.updateComplete;
      requestAnimationFrame(() => {
        window.__coevolveTable = { action, requestMs, renderedMs: performance.now() - t0, rows: table.rows.length, total: table.total };
      });
      if (this.query.trim()) void this.runSearch();
    } catch (err) {
      this.error = err instanceof Error ? err.message : String(err);
    }
  }

  private async runSearch(): Promise<void> {
    const q = this.query.trim();
    if (!q) {
      this.search = undefined;
      return;
    }
    const t0 = performance.now();
    try {
      this.search = await this.channel.request('rollouts/search', { runDir: this.runDir, query: q, filter: this.filter, limit: 100 });
      await this.updateComplete;
      requestAnimationFrame(() => {
        window.__coevolveTable = { action: 'search', requestMs: performance.now() - t0, renderedMs: performance.now() - t0, rows: this.search?.hits.length ?? 0, total: this.search?.total ?? 0 };
      });
    } catch (err) {
      this.error = err instanceof Error ? err.message : String(err);
    }
  }

  private sortBy(key: RolloutSortKey): void {
    this.sort = { key, dir: this.sort.key === key && this.sort.dir === 'asc' ? 'desc' : key === 'reward' ? 'desc' : 'asc' };
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
    this.selected = has ? this.selected.filter((x) => x !== row.id) : [...this.selected, row.id].slice(-2);
  }

  private async showCompare(): Promise<void> {
    const rows = this.selected.map((id) => this.table?.rows.find((r) => r.id === id) ?? this.search?.hits.find((h) => h.row.id === id)?.row).filter((r): r is RolloutRow => r !== undefined);
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
    const select = (id: string, label: string, options: string[], value: string | undefined, set: (v: string) => void): TemplateResult => html`<label class="filter">${label}
      <select id=${id} @change=${(e: Event) => set((e.target as HTMLSelectElement).value)}>
        <option value="" ?selected=${!value}>any</option>
        ${options.map((o) => html`<option value=${o} ?selected=${o === value}>${o}</option>`)}
      </select></label>`;
    return html`<div class="table-filters" role="search" aria-label="Filter rollouts">
      <label class="filter">Search transcripts <input id="table-search" type="search" placeholder="text in any step" .value=${this.query} @input=${(e: Event) => {
        this.query = (e.target as HTMLInputElement).value;
        clearTimeout(this.searchTimer);
        this.searchTimer = setTimeout(() => void this.runSearch(), 150);
      }}></label>
      ${select('filter-outcome', 'outcome', ['passed', 'failed'], f.outcome, (v) => this.setFilter({ outcome: (v || undefined) as RolloutFilter['outcome'] }))}
      ${select('filter-status', 'status', ['terminated', 'truncated', 'error'], f.statuses?.[0], (v) => this.setFilter({ statuses: v ? [v as 'terminated'] : undefined }))}
      ${select('filter-generation', 'generation', (facets?.generations ?? []).map(String), f.generations?.[0]?.toString(), (v) => this.setFilter({ generations: v ? [Number(v)] : undefined }))}
      ${select('filter-family', 'family', facets?.families ?? [], f.families?.[0], (v) => this.setFilter({ families: v ? [v] : undefined }))}
      ${select('filter-user', 'user', facets?.users ?? [], f.users?.[0], (v) => this.setFilter({ users: v ? [v] : undefined }))}
      ${select('filter-tag', 'tag', facets?.tags ?? [], f.tags?.[0], (v) => this.setFilter({ tags: v ? [v] : undefined }))}
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
    const scale = scaleFor(t.rows.map((r) => r.reward));
    const head = (c: (typeof columns)[number]): TemplateResult => {
      const sorted = this.sort.key === c.key;
      return html`<th class=${c.right ? 'num' : ''} aria-sort=${sorted ? (this.sort.dir === 'asc' ? 'ascending' : 'descending') : 'none'}>
        <button class="sort" data-sort=${c.key} @click=${() => this.sortBy(c.key)}>${c.label}${sorted ? (this.sort.dir === 'asc' ? ' ▲' : ' ▼') : ''}</button></th>`;
    };
    return html`<p class="dim" id="table-count">${t.total} rollout${t.total === 1 ? '' : 's'}${t.total > t.rows.length ? `, first ${t.rows.length} shown` : ''}${t.running ? ` · ${t.running} still running` : ''} · Enter opens a rollout, space selects it for comparison</p>
      <table class="rollouts" id="rollouts">
        <thead><tr><th><span class="sr-only">select</span></th>${columns.map(head)}<th>tags</th></tr></thead>
        <tbody>${t.rows.map((r) => this.row(r, scale))}</tbody>
      </table>
      ${t.total > t.rows.length ? html`<vscode-button secondary id="table-more" @click=${() => { this.limit = Math.min(5000, this.limit * 2); void this.load('more'); }}>Show more</vscode-button>` : nothing}`;
  }

  private row(r: RolloutRow, scale: { lo: number; hi: number }): TemplateResult {
    const chosen = this.selected.includes(r.id);
    const outcome = r.status === 'error' ? 'error' : r.success ? 'passed' : r.status === 'truncated' ? 'truncated' : 'failed';
    return html`<tr tabindex="0" class=${chosen ? 'chosen' : ''} data-id=${r.id} aria-selected=${chosen ? 'true' : 'false'}
      @keydown=${(e: KeyboardEvent) => {
        if (e.key === 'Enter') this.open(r);
        if (e.key === ' ') {
          e.preventDefault();
          this.toggle(r);
        }
      }} @dblclick=${() => this.open(r)}>
      <td><input type="checkbox" .checked=${chosen} aria-label=${`select ${r.id}`} @change=${() => this.toggle(r)}></td>
      <td class="num">${r.generation}</td>
      <td title=${r.envId}>${this.name(r.envId)}</td>
      <td title=${r.userId}>${this.name(r.userId)}</td>
      <td class="num"><button class="link" @click=${() => this.open(r)} title=${`open ${r.id}`}>${r.trial}${r.hint ? ' (hint)' : ''}</button></td>
      <td class="outcome-${outcome === 'truncated' ? 'failed' : outcome}">${outcome}</td>
      <td class="num reward-cell"><span class="reward-num">${r.reward.toFixed(2)}</span>${valueBar(r.reward, scale, `reward of ${r.id}`)}</td>
      <td class="num">${r.steps}</td>
      <td class="num">${(r.durationMs / 1000).toFixed(1)} s</td>
      <td>${r.tags.map((x) => html`<span class="tag">${x}</span>`)}</td>
    </tr>`;
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
