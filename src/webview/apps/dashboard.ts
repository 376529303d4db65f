// The run dashboard: per-generation charts (uPlot) of the stored metrics, the lineage of environments and users,
// and side-by-side comparison of two generations or two runs. It draws what the run directory holds; nothing here
// computes a metric (the deltas in the comparison table are differences of stored numbers).
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-tabs/index.js';
import '@vscode-elements/elements/dist/vscode-tab-header/index.js';
import '@vscode-elements/elements/dist/vscode-tab-panel/index.js';
import { html, LitElement, nothing, type PropertyValues, type TemplateResult } from 'lit';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { GenerationMetrics } from '../../core/metrics/generationMetrics.js';
import type { DashboardPanelState, DashboardView, LineageNode, RunChoice, RunOverview } from '../protocol.js';
import { HostChannel, initialState } from '../rpc.js';
import '../styles/common.css';
import '../styles/dashboard.css';

interface Series {
  label: string;
  value: (m: GenerationMetrics, run: RunOverview) => number;
}

interface ChartSpec {
  id: string;
  title: string;
  series: Series[];
  percent?: boolean;
}

const charts: ChartSpec[] = [
  { id: 'success', title: 'Success', percent: true, series: [
    { label: 'success', value: (m) => m.successRate },
    { label: 'verifier', value: (m) => m.verifierSuccessRate },
    { label: 'pass^k', value: (m, r) => m.passHatK[r.k] ?? 0 },
    { label: 'pass@k', value: (m, r) => m.passAtK[r.k] ?? 0 },
  ] },
  { id: 'reward', title: 'Reward parts', series: [
    { label: 'total', value: (m) => m.meanReward },
    { label: 'verifier', value: (m) => m.rewardComponents.verifier },
    { label: 'user goal', value: (m) => m.rewardComponents.userGoal },
    { label: 'satisfaction', value: (m) => m.rewardComponents.satisfaction },
    { label: 'efficiency', value: (m) => m.rewardComponents.efficiency },
    { label: 'rubric', value: (m) => m.rewardComponents.rubric },
  ] },
  { id: 'frontier', title: 'Regret and in-band share', series: [
    { label: 'regret', value: (m) => m.regret },
    { label: 'in band', value: (m) => m.inBandShare },
    { label: 'regret > 0', value: (m) => m.regretPositiveShare },
  ] },
  { id: 'difficulty', title: 'Difficulty', series: [
    { label: 'mean difficulty', value: (m) => m.meanDifficulty },
    { label: 'max level', value: (m) => m.difficulty.maxLevel },
  ] },
  { id: 'diversity', title: 'Diversity', series: [
    { label: 'families', value: (m) => m.diversity.families },
    { label: 'niches', value: (m) => m.diversity.niches },
    { label: 'skill entropy', value: (m) => m.diversity.skillEntropy },
    { label: 'archive', value: (m) => m.diversity.archiveSize },
  ] },
  { id: 'cost', title: 'Cost and errors', series: [
    { label: 'cost (USD)', value: (m) => m.costUsd },
    { label: 'errors', value: (m) => m.errors },
    { label: 'truncated', value: (m) => m.truncated },
  ] },
];

const palette = ['--vscode-charts-blue', '--vscode-charts-green', '--vscode-charts-purple', '--vscode-charts-orange', '--vscode-charts-yellow', '--vscode-charts-red'];

const compareRows: { label: string; value: (m: GenerationMetrics, r: RunOverview) => number; percent?: boolean; higherIsBetter?: boolean }[] = [
  { label: 'success', value: (m) => m.successRate, percent: true, higherIsBetter: true },
  { label: 'verifier success', value: (m) => m.verifierSuccessRate, percent: true, higherIsBetter: true },
  { label: 'pass^k', value: (m, r) => m.passHatK[r.k] ?? 0, percent: true, higherIsBetter: true },
  { label: 'mean reward', value: (m) => m.meanReward, higherIsBetter: true },
  { label: 'regret', value: (m) => m.regret },
  { label: 'in-band share', value: (m) => m.inBandShare, percent: true, higherIsBetter: true },
  { label: 'mean difficulty', value: (m) => m.meanDifficulty },
  { label: 'archive size', value: (m) => m.archive.size },
  { label: 'rollouts', value: (m) => m.rollouts },
  { label: 'tokens', value: (m) => m.tokens },
  { label: 'cost (USD)', value: (m) => m.costUsd, higherIsBetter: false },
  { label: 'errors', value: (m) => m.errors, higherIsBetter: false },
];

const fmt = (x: number, percent?: boolean): string => (percent ? `${(x * 100).toFixed(0)}%` : Number.isInteger(x) ? String(x) : x.toFixed(3));

export class RunDashboard extends LitElement {
  static override properties = {
    view: { state: true },
    error: { state: true },
    runs: { state: true },
    genA: { state: true },
    genB: { state: true },
    tab: { state: true },
  };

  declare view: DashboardView | undefined;
  declare error: string | undefined;
  declare runs: RunChoice[];
  declare genA: number;
  declare genB: number;
  declare tab: number;

  private channel!: HostChannel;
  private state!: DashboardPanelState;
  private plots: uPlot[] = [];
  private resizeObserver: ResizeObserver | undefined;

  constructor() {
    super();
    this.runs = [];
    this.genA = -1;
    this.genB = -1;
    this.tab = 0;
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
    this.channel.setState(state);
    this.channel.onNotification((method, params) => {
      const dir = (params as { runDir?: string }).runDir;
      if (method === 'run/changed' && (dir === this.state.runDir || dir === this.state.compareRunDir)) void this.load();
    });
    this.channel.ready();
    this.resizeObserver = new ResizeObserver(() => this.resizePlots());
    this.resizeObserver.observe(this);
    void this.load();
    void this.channel.request('runs/list', {}).then((r) => (this.runs = r), () => undefined);
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

  private setCompareRun(runDir: string): void {
    this.state = { ...this.state, ...(runDir ? { compareRunDir: runDir } : { compareRunDir: undefined }) };
    if (!runDir) delete this.state.compareRunDir;
    this.channel.setState(this.state);
    this.channel.command('state/changed', runDir ? { compareRunDir: runDir } : {});
    void this.load();
  }

  protected override updated(changed: PropertyValues): void {
    if (changed.has('view') || changed.has('tab')) this.drawCharts();
  }

  private color(i: number, dashed = false): { stroke: string; dash?: number[] } {
    const v = getComputedStyle(document.body).getPropertyValue(palette[i % palette.length] as string).trim() || '#888';
    return dashed ? { stroke: v, dash: [6, 4] } : { stroke: v };
  }

  private drawCharts(): void {
    for (const p of this.plots) p.destroy();
    this.plots = [];
    const v = this.view;
    if (!v || this.tab !== 0) return;
    const fg = getComputedStyle(document.body).getPropertyValue('--vscode-foreground').trim() || '#ccc';
    const grid = 'rgba(127,127,127,0.2)';
    const runs: RunOverview[] = [v.run, ...(v.compare ? [v.compare] : [])];
    const n = Math.max(...runs.map((r) => r.generations.length));
    if (n === 0) return;
    const xs = Array.from({ length: n }, (_, i) => i);
    for (const spec of charts) {
      const target = this.querySelector<HTMLElement>(`#chart-${spec.id}`);
      if (!target) continue;
      const data: (number | null)[][] = [xs];
      const series: uPlot.Series[] = [{ label: 'generation' }];
      runs.forEach((run, ri) => {
        spec.series.forEach((s, si) => {
          data.push(xs.map((g) => {
            const m = run.generations.find((x) => x.index === g);
            return m ? s.value(m, run) : null;
          }));
          series.push({ label: ri === 0 ? s.label : `${s.label} (${run.name})`, ...this.color(si, ri > 0), width: ri === 0 ? 2 : 1.5, points: { show: n < 30 } });
        });
      });
      const opts: uPlot.Options = {
        width: Math.max(240, target.clientWidth),
        height: 180,
        series,
        scales: { x: { time: false }, ...(spec.percent ? { y: { range: [0, 1] as [number, number] } } : {}) },
        axes: [
          { stroke: fg, grid: { stroke: grid }, ticks: { stroke: grid }, incrs: [1, 2, 5, 10, 20, 50, 100], values: (_u, vals) => vals.map((x) => `g${x}`) },
          { stroke: fg, grid: { stroke: grid }, ticks: { stroke: grid }, ...(spec.percent ? { values: (_u: uPlot, vals: number[]) => vals.map((x) => `${Math.round(x * 100)}%`) } : {}) },
        ],
        legend: { show: true },
        cursor: { drag: { x: false, y: false } },
      };
      this.plots.push(new uPlot(opts, data as uPlot.AlignedData, target));
    }
  }

  private resizePlots(): void {
    for (const p of this.plots) {
      const w = p.root.parentElement?.clientWidth;
      if (w && Math.abs(w - p.width) > 4) p.setSize({ width: Math.max(240, w), height: 180 });
    }
  }

  override render(): TemplateResult {
    if (this.error) return html`<div class="problem" id="problem"><span class="codicon codicon-warning"></span> ${this.error}</div>`;
    const v = this.view;
    if (!v) return html`<div class="loading"><span class="codicon codicon-loading codicon-modifier-spin"></span> Loading run…</div>`;
    const r = v.run;
    return html`<header class="dash-head">
        <h1><span class="codicon codicon-graph-line"></span> ${r.name} <span class="dim">${r.runId}</span></h1>
        <div class="facts dim">
          <span id="run-status">${r.status}</span><span>started ${r.startedAt.replace('T', ' ').slice(0, 19)}</span>
          <span>${r.generations.length} generations with metrics${r.pendingGenerations.length ? `, ${r.pendingGenerations.length} in progress` : ''}</span>
          <span>band ${r.band.low}–${r.band.high} · k = ${r.k}</span>
          ${Object.entries(r.roles).map(([k, x]) => html`<span>${k}: ${x}</span>`)}
        </div>
        <div class="compare-run">
          <span>Compare with run</span>
          <vscode-single-select id="compare-run" @change=${(e: Event) => this.setCompareRun((e.target as HTMLSelectElement).value)}>
            <vscode-option value="" ?selected=${!v.compare}>(none)</vscode-option>
            ${this.runs.filter((c) => c.runDir !== r.runDir).map((c) => html`<vscode-option value=${c.runDir} ?selected=${v.compare?.runDir === c.runDir}>${c.label} · ${c.description}</vscode-option>`)}
          </vscode-single-select>
        </div>
      </header>
      <vscode-tabs selected-index=${this.tab} @vsc-tabs-select=${(e: CustomEvent<{ selectedIndex: number }>) => (this.tab = e.detail.selectedIndex)}>
        <vscode-tab-header slot="header" data-tab="charts">Charts</vscode-tab-header>
        <vscode-tab-panel>${this.tab === 0 ? this.chartsView(v) : nothing}</vscode-tab-panel>
        <vscode-tab-header slot="header" data-tab="lineage">Lineage</vscode-tab-header>
        <vscode-tab-panel>${this.tab === 1 ? this.lineageView(v) : nothing}</vscode-tab-panel>
        <vscode-tab-header slot="header" data-tab="compare">Compare</vscode-tab-header>
        <vscode-tab-panel>${this.tab === 2 ? this.compareView(v) : nothing}</vscode-tab-panel>
      </vscode-tabs>`;
  }

  private chartsView(v: DashboardView): TemplateResult {
    if (v.run.generations.length === 0) return html`<p class="dim" id="no-metrics">No generation has finished yet; charts appear when the first one does.</p>`;
    return html`<div class="charts" id="charts">${charts.map((c) => html`<div class="chart"><h2>${c.title}</h2><div id=${`chart-${c.id}`}></div></div>`)}</div>
      ${v.agentUpdates.length ? html`<h2>Agent updates</h2><ul class="updates">${v.agentUpdates.map((a) => html`<li>g${a.generation}: ${a.fromId} → ${a.toId} <span class="dim">${a.change}</span> ${a.promoted ? html`<span class="tag">promoted</span>` : html`<span class="tag">kept incumbent</span>`}</li>`)}</ul>` : nothing}`;
  }

  private lineageView(v: DashboardView): TemplateResult {
    const section = (kind: 'environment' | 'user'): TemplateResult => {
      const nodes = v.lineage.filter((n) => n.kind === kind);
      const ids = new Set(nodes.map((n) => n.id));
      const children = new Map<string, LineageNode[]>();
      const roots: LineageNode[] = [];
      for (const n of nodes) {
        if (n.parent && ids.has(n.parent)) children.set(n.parent, [...(children.get(n.parent) ?? []), n]);
        else roots.push(n);
      }
      const rejected = v.rejections.filter((r) => r.kind === kind);
      const item = (n: LineageNode): TemplateResult => html`<li>
        <div class="lineage-node ${n.retired ? 'retired' : ''}" data-id=${n.id}>
          <span class="codicon codicon-${kind === 'environment' ? 'server-environment' : 'account'}"></span>
          <b>${n.id}</b>
          ${n.operator ? html`<span class="op">${n.operator}</span>` : html`<span class="op seed">seed</span>`}
          <span class="dim">g${n.generation}</span>
          ${n.family ? html`<span class="dim">${n.family}${n.difficulty !== undefined ? ` · difficulty ${n.difficulty}` : ''}</span>` : nothing}
          ${n.lastPlayed ? html`<span class="rate" title=${`success rate of its ${n.lastPlayed.pairs} pair(s) in generation ${n.lastPlayed.generation}`}>p=${n.lastPlayed.successRate.toFixed(2)} <span class="dim">(g${n.lastPlayed.generation})</span></span>` : html`<span class="dim">not played yet</span>`}
          ${n.retired ? html`<span class="tag">retired: ${n.retired.replace('_', ' ')}</span>` : nothing}
        </div>
        ${children.has(n.id) ? html`<ul>${(children.get(n.id) ?? []).map(item)}${rejected.filter((r) => r.parent === n.id).map(rejectedItem)}</ul>` : rejected.some((r) => r.parent === n.id) ? html`<ul>${rejected.filter((r) => r.parent === n.id).map(rejectedItem)}</ul>` : nothing}
      </li>`;
      const rejectedItem = (r: (typeof rejected)[number]): TemplateResult => html`<li><div class="lineage-node rejected"><span class="codicon codicon-circle-slash"></span> ${r.id} <span class="op">${r.operator}</span> <span class="dim">g${r.generation} · rejected: ${r.reason}</span></div></li>`;
      return html`<h2>${kind === 'environment' ? 'Environments' : 'Users'} <span class="dim">(${nodes.length} versions, ${rejected.length} rejected)</span></h2><ul class="lineage" id=${`lineage-${kind}`}>${roots.map(item)}</ul>`;
    };
    return html`<div class="lineage-view">${section('environment')}${section('user')}</div>`;
  }

  private compareView(v: DashboardView): TemplateResult {
    const gens = v.run.generations;
    if (gens.length === 0) return html`<p class="dim">No generation has metrics yet.</p>`;
    const select = (value: number, set: (x: number) => void, id: string): TemplateResult => html`<vscode-single-select id=${id} @change=${(e: Event) => set(Number((e.target as HTMLSelectElement).value))}>
      ${gens.map((g) => html`<vscode-option value=${String(g.index)} ?selected=${g.index === value}>generation ${g.index}</vscode-option>`)}</vscode-single-select>`;
    const a = gens.find((g) => g.index === this.genA) ?? gens[0];
    const b = gens.find((g) => g.index === this.genB) ?? gens.at(-1);
    const other = v.compare?.generations.at(-1);
    const last = gens.at(-1);
    const table = (left: GenerationMetrics | undefined, right: GenerationMetrics | undefined, lrun: RunOverview, rrun: RunOverview, head: [string, string], id: string): TemplateResult => html`<table class="compare" id=${id}>
      <thead><tr><th></th><th>${head[0]}</th><th>${head[1]}</th><th>Δ</th></tr></thead>
      <tbody>${compareRows.map((row) => {
        const x = left ? row.value(left, lrun) : NaN;
        const y = right ? row.value(right, rrun) : NaN;
        const d = y - x;
        const cls = !Number.isFinite(d) || d === 0 || row.higherIsBetter === undefined ? '' : (d > 0) === row.higherIsBetter ? 'better' : 'worse';
        return html`<tr><td>${row.label}</td><td>${Number.isFinite(x) ? fmt(x, row.percent) : '–'}</td><td>${Number.isFinite(y) ? fmt(y, row.percent) : '–'}</td><td class=${cls}>${Number.isFinite(d) ? `${d > 0 ? '+' : ''}${fmt(d, row.percent)}` : '–'}</td></tr>`;
      })}</tbody></table>`;
    return html`<div class="compare-view">
      <h2>Two generations</h2>
      <div class="pickers">${select(a?.index ?? 0, (x) => (this.genA = x), 'gen-a')} <span>vs</span> ${select(b?.index ?? 0, (x) => (this.genB = x), 'gen-b')}</div>
      ${table(a, b, v.run, v.run, [`g${a?.index}`, `g${b?.index}`], 'compare-generations')}
      <h2>Two runs <span class="dim">(last generation with metrics)</span></h2>
      ${v.compare ? table(last, other, v.run, v.compare, [`${v.run.name} g${last?.index}`, `${v.compare.name} g${other?.index ?? '–'}`], 'compare-runs') : html`<p class="dim">Pick a run to compare with at the top.</p>`}
    </div>`;
  }
}

customElements.define('coevolve-dashboard', RunDashboard);
