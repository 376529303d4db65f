// A run in the browser host: its rollouts as one flat table across generations (filter by generation, score,
// outcome, status, family, user, tag, hint; sort by any column; paged), full-text search across transcripts, and
// links to the dashboard and to each rollout. The table is answered by the data layer (rollouts/table); this page
// only draws it. Live: a run/changed notification for this run asks again with the same filters.
import '../render/cspWatch.js';
import { html, LitElement, nothing, type TemplateResult } from 'lit';
import type { EvalView, RolloutFilter, RolloutRow, RolloutSortKey, RolloutTable, SearchResult } from '../protocol.js';
import { HostChannel } from '../rpc.js';
import { browserLinks } from '../browserLinks.js';
import { tagLabel } from '../names.js';
import '../styles/common.css';
import './pages.css';

interface RunPageState {
  runDir: string;
  generation?: number;
}

const pageSize = 200;
const columns: { key: RolloutSortKey; label: string; num?: boolean }[] = [
  { key: 'generation', label: 'gen', num: true }, { key: 'envId', label: 'environment' }, { key: 'family', label: 'family' },
  { key: 'userId', label: 'user' }, { key: 'trial', label: 'trial', num: true }, { key: 'status', label: 'status' },
  { key: 'reward', label: 'reward', num: true }, { key: 'steps', label: 'steps', num: true }, { key: 'durationMs', label: 'time', num: true },
  { key: 'tokens', label: 'tokens', num: true }, { key: 'costUsd', label: 'cost', num: true },
];

export class RunPage extends LitElement {
  static override properties = { table: { state: true }, search: { state: true }, error: { state: true }, filter: { state: true }, sort: { state: true }, evaluation: { state: true } };
  declare table: RolloutTable | undefined;
  declare search: SearchResult | undefined;
  declare error: string | undefined;
  declare filter: RolloutFilter;
  declare sort: { key: RolloutSortKey; dir: 'asc' | 'desc' };
  declare evaluation: EvalView | undefined;
  private channel!: HostChannel;
  private state!: RunPageState;
  private limit = pageSize;
  private query = '';

  constructor() {
    super();
    this.filter = {};
    this.sort = { key: 'generation', dir: 'asc' };
  }

  protected override createRenderRoot(): HTMLElement {
    return this;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.channel = new HostChannel();
    const state = this.channel.getState<RunPageState>();
    if (!state) {
      this.error = 'This page does not name a run (run.html?run=<key>).';
      return;
    }
    this.state = state;
    if (state.generation !== undefined) this.filter = { generations: [state.generation] };
    this.channel.onNotification((method, params) => {
      if (method === 'run/changed' && (params as { runDir: string }).runDir === this.state.runDir) void this.load();
    });
    this.channel.ready();
    void this.load();
    void this.channel.request('eval/get', { runDir: state.runDir }).then((e) => (this.evaluation = e), () => undefined);
  }

  private async load(): Promise<void> {
    try {
      this.table = await this.channel.request('rollouts/table', { runDir: this.state.runDir, filter: this.filter, sort: this.sort, limit: this.limit });
      this.error = undefined;
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
    try {
      this.search = await this.channel.request('rollouts/search', { runDir: this.state.runDir, query: q, filter: this.filter, limit: 100 });
    } catch (err) {
      this.search = { runDir: this.state.runDir, query: q, total: 0, hits: [], searched: 0 };
      this.error = err instanceof Error ? err.message : String(err);
    }
  }

  private setFilter(change: Partial<RolloutFilter>): void {
    const next: RolloutFilter = { ...this.filter, ...change };
    for (const [k, v] of Object.entries(next)) if (v === undefined || (Array.isArray(v) && v.length === 0)) delete (next as Record<string, unknown>)[k];
    this.filter = next;
    this.limit = pageSize;
    const g = next.generations?.length === 1 ? next.generations[0] : undefined;
    this.channel.setState({ runDir: this.state.runDir, ...(g !== undefined ? { generation: g } : {}) });
    void this.load();
  }

  private sortBy(key: RolloutSortKey): void {
    this.sort = { key, dir: this.sort.key === key && this.sort.dir === 'desc' ? 'asc' : 'desc' };
    void this.load();
  }

  override render(): TemplateResult {
    if (!this.table) return this.error ? html`<div class="problem" id="problem">${this.error}</div>` : html`<div class="loading">Loading run…</div>`;
    const t = this.table;
    return html`<div class="page">
      <h1>${t.runName} <span class="dim">${this.state.runDir}</span></h1>
      <p class="summary-line"><a id="dashboard-link" href=${browserLinks.dashboard(t.runDir)}>Dashboard</a>
        · <a id="dataset-link" href=${browserLinks.dataset(t.runDir)}>Dataset</a>
        · <span id="row-count">${t.total}</span> rollouts match${t.running ? html` · <span id="running-count" class="status-running">${t.running} running</span>` : nothing}</p>
      ${this.error ? html`<p class="problem" id="problem">${this.error}</p>` : nothing}
      ${this.evalView()}
      ${this.filters(t)}
      ${this.searchView()}
      <table class="grid" id="rollout-table">
        <thead><tr>${columns.map((c) => html`<th class=${c.num ? 'num' : ''}><button data-sort=${c.key} @click=${() => this.sortBy(c.key)}>${c.label}${this.sort.key === c.key ? (this.sort.dir === 'desc' ? ' ▼' : ' ▲') : ''}</button></th>`)}<th>tags</th></tr></thead>
        <tbody>${t.rows.map((r) => this.row(r))}</tbody>
      </table>
      ${t.rows.length < t.total ? html`<button class="more" id="more" @click=${() => { this.limit += pageSize; void this.load(); }}>Show ${Math.min(pageSize, t.total - t.rows.length)} more (${t.rows.length} of ${t.total})</button>` : nothing}
    </div>`;
  }

  private row(r: RolloutRow): TemplateResult {
    const outcome = r.status === 'error' ? 'error' : r.success ? 'passed' : 'failed';
    return html`<tr class="rollout-row" data-id=${r.id}>
      <td class="num"><a href=${browserLinks.run(this.state.runDir, r.generation)}>${r.generation}</a></td>
      <td><a class="rollout-link" href=${browserLinks.rollout(this.state.runDir, r.generation, r.id)}>${r.envId}</a></td>
      <td>${r.family}</td><td>${r.userId}</td><td class="num">${r.trial}${r.hint ? ' (hint)' : ''}</td>
      <td class=${outcome === 'passed' ? 'ok' : 'bad'}>${outcome}${r.status === 'truncated' ? ' · truncated' : ''}</td>
      <td class="num">${r.reward.toFixed(2)}</td><td class="num">${r.steps}</td><td class="num">${(r.durationMs / 1000).toFixed(1)} s</td>
      <td class="num">${r.tokens}</td><td class="num">${r.costUsd ? `$${r.costUsd.toFixed(4)}` : ''}</td>
      <td>${r.tags.map((x) => html`<span class="tag" title=${x}>${tagLabel(x)}</span>`)}</td>
    </tr>`;
  }

  private filters(t: RolloutTable): TemplateResult {
    const f = this.filter;
    const one = (values: string[] | undefined): string => values?.[0] ?? '';
    const select = (id: string, label: string, options: string[], value: string, set: (v: string) => void): TemplateResult => html`<label>${label}
      <select id=${id} @change=${(e: Event) => set((e.target as HTMLSelectElement).value)}>
        <option value="" ?selected=${value === ''}>any</option>
        ${options.map((o) => html`<option value=${o} ?selected=${o === value}>${o}</option>`)}
      </select></label>`;
    return html`<div class="filters" id="filters">
      ${select('filter-generation', 'generation', t.facets.generations.map(String), f.generations?.length === 1 ? String(f.generations[0]) : '', (v) => this.setFilter({ generations: v === '' ? [] : [Number(v)] }))}
      <label>reward at least<input id="filter-min-reward" type="number" step="0.05" .value=${f.minReward === undefined ? '' : String(f.minReward)}
        @change=${(e: Event) => { const v = (e.target as HTMLInputElement).value; this.setFilter({ minReward: v === '' ? undefined : Number(v) }); }}></label>
      ${select('filter-outcome', 'outcome', ['passed', 'failed'], f.outcome ?? '', (v) => this.setFilter({ outcome: v === '' ? undefined : (v as 'passed' | 'failed') }))}
      ${select('filter-status', 'status', ['terminated', 'truncated', 'error'], one(f.statuses), (v) => this.setFilter({ statuses: v === '' ? [] : [v as 'terminated'] }))}
      ${select('filter-family', 'family', t.facets.families, one(f.families), (v) => this.setFilter({ families: v === '' ? [] : [v] }))}
      ${select('filter-user', 'user', t.facets.users, one(f.users), (v) => this.setFilter({ users: v === '' ? [] : [v] }))}
      ${select('filter-tag', 'tag', t.facets.tags, one(f.tags), (v) => this.setFilter({ tags: v === '' ? [] : [v] }))}
      ${select('filter-hint', 'hint plays', ['without', 'only'], f.hint === undefined ? '' : f.hint ? 'only' : 'without', (v) => this.setFilter({ hint: v === '' ? undefined : v === 'only' }))}
      ${this.channel.host === 'static' ? nothing : html`<label>search transcripts<input id="search" type="search" placeholder="text in any step, Enter"
        @keydown=${(e: KeyboardEvent) => { if (e.key === 'Enter') { this.query = (e.target as HTMLInputElement).value; void this.runSearch(); } }}></label>`}
    </div>`;
  }

  /** A `coevolve eval` result stored with this run directory: the summary and each pair with its interval. */
  private evalView(): TemplateResult | typeof nothing {
    const e = this.evaluation;
    if (!e) return nothing;
    if (e.problem) return html`<p class="problem" id="eval-problem">${e.problem}</p>`;
    const r = e.result;
    if (!r) return nothing;
    const pct = (x: number): string => `${Math.round(x * 100)}%`;
    const s = r.summary;
    const predicted = r.pairs.some((p) => typeof p.predicted === 'number');
    return html`<section id="eval"><h2>Eval: ${r.agent.id} <span class="dim">(${r.agent.from}) · ${r.n} fresh plays per pair · seed ${r.seed}</span></h2>
      <p class="summary-line">${s.pairs} pairs · <b>${pct(s.inBandShare)}</b> in band ${r.band.low}–${r.band.high}${s.inBandRedrawSd !== undefined ? html` <span class="dim" id="eval-redraw">(sd ${Math.round(s.inBandRedrawSd * 100)} points over another draw)</span>` : nothing}${typeof s.inBandExpected === 'number' ? html` · another draw would read <span id="eval-expected">${pct(s.inBandExpected)}</span> on average` : nothing}${typeof s.trueSpread === 'number' ? html` · true success spreads <span id="eval-spread">${s.trueSpread.toFixed(2)}</span> (sd)` : nothing} · mean success ${pct(s.meanSuccess)}
        · mean |success − centre| ${s.meanAbsDistance.toFixed(3)} · relative difficulty ${s.difficulty.mean.toFixed(2)} ± ${s.difficulty.se.toFixed(2)}
        · rollout ids ${r.rolloutIds.prefix}* checked against ${r.rolloutIds.checkedAgainst} of the run: no overlap</p>
      ${this.predictionView(r)}
      <table class="grid" id="eval-pairs"><thead><tr><th>environment</th><th>user</th><th>family</th><th class="num">success</th><th class="num">95 % interval</th><th class="num">plays</th><th>in band</th>${predicted ? html`<th class="num" title="the run's fitted model's P(success) for this agent, which the run selected on">run predicted</th>` : nothing}<th class="num">difficulty</th></tr></thead>
      <tbody>${r.pairs.map((p) => html`<tr class="eval-row"><td>${p.envId}</td><td>${p.userId}</td><td>${p.family}</td><td class="num">${p.successes}/${p.plays} (${pct(p.success)})</td>
        <td class="num">${pct(p.ci[0])}–${pct(p.ci[1])}</td><td class="num">${p.plays}${p.errors ? ` (+${p.errors} errors)` : ''}${p.unfinished ? ` (+${p.unfinished} unfinished)` : ''}</td><td>${p.inBand ? 'yes' : 'no'}</td>${predicted ? html`<td class="num eval-predicted">${typeof p.predicted === 'number' ? pct(p.predicted) : '—'}</td>` : nothing}<td class="num">${p.difficulty.toFixed(2)}</td></tr>`)}</tbody></table>
      ${r.userEffect?.mean ? html`<p class="summary-line">evolved users vs their parents (parent − child success): ${r.userEffect.mean.mean.toFixed(3)} ${r.userEffect.mean.n >= 2 ? `[${r.userEffect.mean.ci[0].toFixed(3)}, ${r.userEffect.mean.ci[1].toFixed(3)}] over ${r.userEffect.mean.n} users` : 'from one user (no interval over users)'}</p>` : nothing}
    </section>`;
  }

  /** Whether what the run selected on foretold these fresh plays (summary.modelCheck / evidenceCheck, as eval prints them). */
  private predictionView(r: NonNullable<EvalView['result']>): TemplateResult | typeof nothing {
    const s = r.summary;
    const checks = [
      { id: 'eval-model', what: "the run's fitted model", check: s.modelCheck },
      { id: 'eval-evidence', what: "the run's pooled evidence", check: s.evidenceCheck },
    ].filter((c): c is typeof c & { check: NonNullable<typeof c.check> } => c.check !== undefined && c.check !== null);
    if (checks.length === 0) return nothing;
    const signed = (x: number): string => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(2)}`;
    return html`<p class="summary-line" id="eval-prediction">against these plays, what the run selected on:
      ${checks.map((c, i) => html`${i > 0 ? ' · ' : ''}<span id=${c.id}>${c.what} off by <b>${c.check.rmsError.toFixed(2)}</b> rms${typeof s.trueSpread === 'number' ? ` (knowing only the mean: ${s.trueSpread.toFixed(2)})` : ''}, bias ${signed(c.check.bias)}, slope ${c.check.slope === null ? '—' : c.check.slope.toFixed(2)} over ${c.check.pairs} pairs</span>`)}
      <span class="dim">(noise of the fresh plays removed; slope 1 is calibrated, below 1 overconfident, 0 no information)</span></p>`;
  }

  private searchView(): TemplateResult | typeof nothing {
    const s = this.search;
    if (!s) return nothing;
    return html`<section id="search-hits"><h2>“${s.query}”: <span id="search-total">${s.total}</span> rollouts of ${s.searched} searched</h2>
      <ul class="hits">${s.hits.map((h) => html`<li class="hit"><a href=${browserLinks.rollout(this.state.runDir, h.row.generation, h.row.id, h.stepId)}>g${h.row.generation} · ${h.row.envId} × ${h.row.userId} · trial ${h.row.trial}</a>
        <span class="dim">step ${h.stepId} (${h.source}) · ${h.matches} matching step${h.matches === 1 ? '' : 's'}</span><div class="snippet">${h.snippet}</div></li>`)}</ul></section>`;
  }
}

customElements.define('coevolve-run-page', RunPage);
