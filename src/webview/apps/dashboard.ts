// The run dashboard, built around "is it working?": a verdict row, per-generation charts of the stored metrics
// (band shaded, intervals, promotions), the lineage with what each child changed, the flat rollout table with
// transcript search and side-by-side compare, and two generations or two runs compared. It draws what the run
// directory holds; nothing here computes a metric (differences in the comparison are of stored numbers).
import '../render/cspWatch.js';
import '@vscode-elements/elements/dist/vscode-tabs/index.js';
import '@vscode-elements/elements/dist/vscode-tab-header/index.js';
import '@vscode-elements/elements/dist/vscode-tab-panel/index.js';
import { html, LitElement, nothing, type PropertyValues, type TemplateResult } from 'lit';
import type uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { operatorLabel, runLabel, runTitle } from '../names.js';
import type { DashboardPanelState, DashboardView, LineageNode, RunName, SpecView } from '../protocol.js';
import { chartsFor, seriesOf } from '../render/chartSpecs.js';
import type { LineageHandlers } from '../render/lineagePanel.js';
import { mountPlot } from '../render/plot.js';
import type { RolloutTableView } from '../render/rolloutTableView.js';
import { verdictStrip } from '../render/verdict.js';
import { HostChannel, initialState } from '../rpc.js';
import '../styles/common.css';
import '../styles/dashboard.css';

const tabs = ['overview', 'lineage', 'rollouts', 'compare'] as const;
type Tab = (typeof tabs)[number];
type LaterTabs = typeof import('../render/dashboardTabs.js');

const loadingTab = html`<p class="loading"><span class="codicon codicon-loading codicon-modifier-spin"></span> Loading…</p>`;

/** The code of the tabs after the first, asked for once (a chunk of its own: the first screen does not wait for it). */
let laterTabs: Promise<LaterTabs> | undefined;
const loadLaterTabs = (): Promise<LaterTabs> => (laterTabs ??= import('../render/dashboardTabs.js'));

export class RunDashboard extends LitElement {
  static override properties = {
    view: { state: true },
    error: { state: true },
    runs: { state: true },
    genA: { state: true },
    genB: { state: true },
    tab: { state: true },
    selected: { state: true },
    spec: { state: true },
    specProblem: { state: true },
    later: { state: true },
  };

  declare view: DashboardView | undefined;
  declare error: string | undefined;
  declare runs: RunName[];
  declare genA: number;
  declare genB: number;
  declare tab: Tab;
  declare selected: LineageNode | undefined;
  declare spec: SpecView | 'loading' | undefined;
  declare specProblem: string | undefined;
  /** The later tabs' code, once loaded. */
  declare later: LaterTabs | undefined;

  private channel!: HostChannel;
  private state!: DashboardPanelState;
  private plots: uPlot[] = [];
  /** Bumped by every drawCharts: charts left for later by an earlier one are not mounted. */
  private chartEpoch = 0;
  private resizeObserver: ResizeObserver | undefined;

  constructor() {
    super();
    this.runs = [];
    this.genA = -1;
    this.genB = -1;
    this.tab = 'overview';
  }

  protected override createRenderRoot(): HTMLElement {
    return this;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.channel = new HostChannel();
    const state = this.channel.getState<DashboardPanelState>() ?? initialState<DashboardPanelState>(this);
    if (!state) {
      this.error = 'This dashboard does not know its run. Open it from a run in the Runs view.';
      return;
    }
    this.state = state;
    this.tab = tabs.includes(state.tab as Tab) ? (state.tab as Tab) : 'overview';
    this.channel.setState(state);
    this.channel.onNotification((method, params) => {
      const dir = (params as { runDir?: string }).runDir;
      if (method === 'run/changed' && (dir === this.state.runDir || dir === this.state.compareRunDir)) {
        void this.load();
        void this.table()?.load('live');
      }
    });
    this.channel.ready();
    this.resizeObserver = new ResizeObserver(() => this.resizePlots());
    this.resizeObserver.observe(this);
    // The compare picker's list is asked for once the dashboard's own data is in and drawn: a host answers one
    // request at a time, and a list of a thousand runs (and its thousand options, drawn in one go) must not hold the
    // charts back. bench:view saw the options drawn before the charts' first frame when asked right after the data.
    // So is the code of the other tabs, unless the page opens on one of them.
    if (this.tab !== 'overview') this.loadLater();
    void this.load().finally(async () => {
      await this.updateComplete;
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      this.loadLater();
      this.runs = await this.channel.request('runs/names', {}).catch(() => this.runs);
    });
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.resizeObserver?.disconnect();
    for (const p of this.plots) p.destroy();
  }

  private async load(): Promise<void> {
    try {
      const view = await this.channel.request('dashboard/get', { runDir: this.state.runDir, ...(this.state.compareRunDir ? { compareRunDir: this.state.compareRunDir } : {}) });
      const gens = view.run.generations;
      if (this.genA < 0 || this.genA >= gens.length) this.genA = Math.max(0, gens.length - 2);
      if (this.genB < 0 || this.genB >= gens.length) this.genB = Math.max(0, gens.length - 1);
      this.view = view;
      this.error = undefined;
    } catch (err) {
      this.error = err instanceof Error ? err.message : String(err);
    }
  }

  private loadLater(): void {
    if (!this.later) void loadLaterTabs().then((m) => (this.later = m), (err: unknown) => (this.error = `the dashboard's tabs did not load: ${err instanceof Error ? err.message : String(err)}`));
  }

  private setTab(tab: Tab): void {
    if (tab !== 'overview') this.loadLater();
    this.tab = tab;
    this.state = { ...this.state, tab };
    this.channel.setState(this.state);
  }

  private setCompareRun(runDir: string): void {
    this.state = { ...this.state, ...(runDir ? { compareRunDir: runDir } : { compareRunDir: undefined }) };
    if (!runDir) delete this.state.compareRunDir;
    this.channel.setState(this.state);
    this.channel.command('state/changed', runDir ? { compareRunDir: runDir } : {});
    void this.load();
  }

  protected override updated(changed: PropertyValues): void {
    if (changed.has('view') || changed.has('tab')) this.drawCharts();
    const t = this.table();
    if (t && this.view) {
      t.names = new Map(this.view.lineage.map((n) => [n.id, n.name ?? n.id]));
      t.channel = this.channel;
      t.runDir = this.state.runDir;
    }
  }

  private table(): RolloutTableView | null {
    return this.querySelector<RolloutTableView>('coevolve-rollout-table');
  }

  /**
   * Mounts the overview's charts: the ones on the first screen at once, the rest after that screen is painted (a
   * uPlot costs tens of ms, more under load, and twelve of them held the first screen until all were drawn). Every
   * chart's width and position is read in one pass before any is mounted, so the layout is computed once.
   */
  private drawCharts(): void {
    for (const p of this.plots) p.destroy();
    this.plots = [];
    const epoch = ++this.chartEpoch;
    const v = this.view;
    if (!v || this.tab !== 'overview') return;
    const runs = [{ run: v.run, label: runLabel(v.run) }, ...(v.compare ? [{ run: v.compare, label: runLabel(v.compare) }] : [])];
    const n = Math.max(...runs.map((r) => r.run.generations.length));
    if (n === 0) return;
    const placed = chartsFor(runs.map((r) => r.run)).flatMap((spec) => {
      const target = this.querySelector<HTMLElement>(`#chart-${spec.id}`);
      if (!target) return [];
      const box = target.getBoundingClientRect();
      return [{ spec, target, width: Math.max(260, box.width), onScreen: box.top < window.innerHeight }];
    });
    const mount = (c: (typeof placed)[number]): void => {
      const drawn = runs.map((r) => ({ ...r, series: seriesOf(c.spec, v, r.run, n) }));
      if (drawn.every((d) => d.series.length === 0)) return;
      this.plots.push(mountPlot({ spec: c.spec, runs: drawn, n, width: c.width, band: v.run.band }, c.target));
    };
    for (const c of placed.filter((x) => x.onScreen)) mount(c);
    const later = placed.filter((x) => !x.onScreen);
    if (later.length === 0) return;
    requestAnimationFrame(() => setTimeout(() => {
      if (epoch === this.chartEpoch) for (const c of later) mount(c);
    }, 0));
  }

  private resizePlots(): void {
    for (const p of this.plots) {
      const w = p.root.parentElement?.clientWidth;
      if (w && Math.abs(w - p.width) > 4) p.setSize({ width: Math.max(260, w), height: 190 });
    }
  }

  private readonly lineageHandlers: LineageHandlers = {
    select: (node) => {
      this.selected = node;
      this.spec = 'loading';
      this.specProblem = undefined;
      this.channel.request('spec/get', { runDir: this.state.runDir, kind: node.kind, id: node.id }).then(
        (s) => (this.spec = s),
        (err: unknown) => (this.specProblem = err instanceof Error ? err.message : String(err)),
      );
    },
    showRollouts: (node) => {
      this.setTab('rollouts');
      void this.updateComplete.then(() => this.table()?.applyFilter(node.kind === 'environment' ? { envIds: [node.id] } : { users: [node.id] }));
    },
  };

  override render(): TemplateResult {
    if (this.error) return html`<div class="problem" id="problem"><span class="codicon codicon-warning"></span> ${this.error}</div>`;
    const v = this.view;
    if (!v) return html`<div class="loading"><span class="codicon codicon-loading codicon-modifier-spin"></span> Loading run…</div>`;
    const r = v.run;
    return html`<header class="dash-head">
        <h1><span class="codicon codicon-graph-line"></span> ${runLabel(r)} <span class="dim">run ${r.runId}</span></h1>
        <div class="facts dim">
          <span id="run-status">${r.status}</span><span>started ${r.startedAt.replace('T', ' ').slice(0, 19)}</span>
          <span>${r.generations.length} generation${r.generations.length === 1 ? '' : 's'} with metrics${r.pendingGenerations.length ? `, ${r.pendingGenerations.length} in progress` : ''}</span>
          <span>target band ${Math.round(r.band.low * 100)}–${Math.round(r.band.high * 100)} % · k = ${r.k} rollouts per pair</span>
          ${Object.entries(r.roles).map(([k, x]) => html`<span>${k}: ${x}</span>`)}
        </div>
        <div class="compare-run">
          <label for="compare-run">Compare with run</label>
          <select id="compare-run" @change=${(e: Event) => this.setCompareRun((e.target as HTMLSelectElement).value)}>
            <option value="" ?selected=${!v.compare}>(none)</option>
            ${this.runs.filter((c) => c.runDir !== r.runDir).map((c) => html`<option value=${c.runDir} ?selected=${v.compare?.runDir === c.runDir}>${runTitle(c)} · ${c.status}</option>`)}
          </select>
          ${v.compareGone ? html`<span class="compare-gone" id="compare-gone"><span class="codicon codicon-warning"></span> ${v.compareGone}</span>` : nothing}
        </div>
      </header>
      <vscode-tabs selected-index=${tabs.indexOf(this.tab)} @vsc-tabs-select=${(e: CustomEvent<{ selectedIndex: number }>) => this.setTab(tabs[e.detail.selectedIndex] ?? 'overview')}>
        <vscode-tab-header slot="header" data-tab="overview">Is it working?</vscode-tab-header>
        <vscode-tab-panel>${this.tab === 'overview' ? this.overview(v) : nothing}</vscode-tab-panel>
        <vscode-tab-header slot="header" data-tab="lineage">Lineage</vscode-tab-header>
        <vscode-tab-panel>${this.tab === 'lineage' ? this.lineageView(v) : nothing}</vscode-tab-panel>
        <vscode-tab-header slot="header" data-tab="rollouts">Rollouts</vscode-tab-header>
        <vscode-tab-panel>${this.tab === 'rollouts' ? (this.later ? html`<coevolve-rollout-table .channel=${this.channel} .runDir=${this.state.runDir} .names=${new Map(v.lineage.map((n) => [n.id, n.name ?? n.id]))}></coevolve-rollout-table>` : loadingTab) : nothing}</vscode-tab-panel>
        <vscode-tab-header slot="header" data-tab="compare">Compare</vscode-tab-header>
        <vscode-tab-panel>${this.tab === 'compare' ? this.compareView(v) : nothing}</vscode-tab-panel>
      </vscode-tabs>`;
  }

  private overview(v: DashboardView): TemplateResult {
    if (v.run.generations.length === 0) return html`${verdictStrip(v)}<p class="dim" id="no-metrics">No generation has finished yet; charts appear when the first one does.</p>`;
    const specs = chartsFor([v.run, ...(v.compare ? [v.compare] : [])]);
    const lacksV2 = v.run.generations.every((m) => m.metricsVersion === undefined);
    return html`${verdictStrip(v)}
      ${lacksV2 ? html`<p class="dim note" id="metrics-v1">This run's metrics are version 1: it has no pooled-evidence band, frozen test set, measured difficulty or user effect; runs recorded with version 2 chart them here.</p>` : nothing}
      <div class="charts" id="charts">${specs.map((c) => html`<figure class="chart" data-chart=${c.id}>
        <figcaption><h2>${c.title}</h2><p class="dim">${c.question}${c.band ? html` Shaded: the target band.` : nothing}</p></figcaption>
        <div id=${`chart-${c.id}`}></div></figure>`)}</div>
      ${this.promotions(v)}
      ${this.retirements(v)}`;
  }

  private promotions(v: DashboardView): TemplateResult {
    if (v.agentUpdates.length === 0) return html``;
    return html`<h2>Agent candidates <span class="dim">and the evidence each decision rested on</span></h2>
      <table class="updates" id="agent-updates"><thead><tr><th>gen</th><th>decision</th><th>change</th><th>candidate</th><th>incumbent</th><th>margin</th></tr></thead>
      <tbody>${v.agentUpdates.map((a) => html`<tr>
        <td>${a.generation}</td>
        <td>${a.promoted ? html`<span class="tag">promoted ${a.fromId} → ${a.toId}</span>` : html`kept ${a.fromId}`}</td>
        <td class="dim">${a.change}</td>
        ${a.heldOut
          ? html`<td>${a.heldOut.candidate.toFixed(3)}</td><td>${a.heldOut.incumbent.toFixed(3)}</td><td>${a.heldOut.candidate - a.heldOut.incumbent >= 0 ? '+' : '−'}${Math.abs(a.heldOut.candidate - a.heldOut.incumbent).toFixed(3)}</td>`
          : html`<td colspan="3" class="dim">no held-out plays</td>`}
      </tr>`)}</tbody></table>
      <p class="dim">Candidate and incumbent: mean reward on the same held-out rollouts of that generation.</p>`;
  }

  private retirements(v: DashboardView): TemplateResult {
    const list = v.retirements ?? [];
    if (list.length === 0) return html`<p class="dim" id="retirements">No pair has been retired.</p>`;
    const names = new Map(v.lineage.map((n) => [n.id, n.name ?? n.id]));
    return html`<h2>Retired pairs</h2><ul id="retirements">${list.map((r) => html`<li>g${r.generation}: ${names.get(r.envId) ?? r.envId}${r.pairId ? html` <span class="dim">(pair ${r.pairId})</span>` : nothing} — ${r.reason.replace('_', ' ')}</li>`)}</ul>`;
  }

  private lineageView(v: DashboardView): TemplateResult {
    const later = this.later;
    if (!later) return loadingTab;
    return html`<div class="lineage-layout">
      <div class="lineage-view">${later.aimByMoveTable(v)}${later.lineageTree(v, 'environment', this.selected?.id, this.lineageHandlers)}${later.lineageTree(v, 'user', this.selected?.id, this.lineageHandlers)}</div>
      <aside class="lineage-aside">${later.lineageDetail(this.selected, this.spec, this.specProblem, this.lineageHandlers)}</aside>
    </div>`;
  }

  private compareView(v: DashboardView): TemplateResult {
    const gens = v.run.generations;
    if (gens.length === 0) return html`<p class="dim">No generation has metrics yet.</p>`;
    const later = this.later;
    if (!later) return loadingTab;
    const { compareTable } = later;
    const select = (value: number, set: (x: number) => void, id: string, label: string): TemplateResult => html`<label for=${id} class="sr-only">${label}</label><select id=${id} @change=${(e: Event) => set(Number((e.target as HTMLSelectElement).value))}>
      ${gens.map((g) => html`<option value=${String(g.index)} ?selected=${g.index === value}>generation ${g.index}</option>`)}</select>`;
    const a = gens.find((g) => g.index === this.genA) ?? gens[0];
    const b = gens.find((g) => g.index === this.genB) ?? gens.at(-1);
    const other = v.compare?.generations.at(-1);
    const last = gens.at(-1);
    return html`<div class="compare-view">
      <h2>Two generations of ${runLabel(v.run)}</h2>
      <div class="pickers">${select(a?.index ?? 0, (x) => (this.genA = x), 'gen-a', 'first generation')} <span>vs</span> ${select(b?.index ?? 0, (x) => (this.genB = x), 'gen-b', 'second generation')}</div>
      ${compareTable(a, b, v.run, v.run, [`generation ${a?.index}`, `generation ${b?.index}`], 'compare-generations')}
      <h2>Two runs <span class="dim">(the last generation with metrics of each)</span></h2>
      ${v.compare ? compareTable(last, other, v.run, v.compare, [`${runLabel(v.run)} · generation ${last?.index}`, `${runLabel(v.compare)} · generation ${other?.index ?? '–'}`], 'compare-runs') : html`<p class="dim">Pick a run to compare with at the top.</p>`}
      ${v.agentUpdates.some((x) => x.promoted) ? html`<p class="dim">Promoted agents: ${v.agentUpdates.filter((x) => x.promoted).map((x) => `${x.toId} (g${x.generation}, ${operatorLabel(x.change)})`).join(', ')}.</p>` : nothing}
    </div>`;
  }
}

customElements.define('coevolve-dashboard', RunDashboard);
