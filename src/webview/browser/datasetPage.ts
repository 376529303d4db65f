// The browser host's dataset page: every curated rollout and environment of the runs the host shows (or of one run),
// filtered as the editor's Dataset view filters, each with why `coevolve export` would leave it out, and the export
// arguments of the filters. The data layer answers (dataset/list); this page only draws it. Live: a dataset/changed
// notification asks again. With `coevolve view --allow-curation` each item has Accept / Reject / Clear buttons.
import '../render/cspWatch.js';
import { html, LitElement, nothing, type TemplateResult } from 'lit';
import type { DatasetFilterParams, DatasetList } from '../protocol.js';
import type { DatasetItem } from '../../viewdata/datasetItems.js';
import { HostChannel } from '../rpc.js';
import { browserLinks } from '../browserLinks.js';
import { tagLabel } from '../names.js';
import '../styles/common.css';
import './pages.css';

interface DatasetPageState {
  runDir?: string;
  filters: DatasetFilterParams;
}

const pageSize = 500;

export class DatasetPage extends LitElement {
  static override properties = { list: { state: true }, error: { state: true }, filters: { state: true } };
  declare list: DatasetList | undefined;
  declare error: string | undefined;
  declare filters: DatasetFilterParams;
  private channel!: HostChannel;
  private runDir: string | undefined;
  private limit = pageSize;

  constructor() {
    super();
    this.filters = {};
  }

  protected override createRenderRoot(): HTMLElement {
    return this;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.channel = new HostChannel();
    const state = this.channel.getState<DatasetPageState>();
    this.runDir = state?.runDir;
    this.filters = state?.filters ?? {};
    this.channel.onNotification((method, params) => {
      const run = (params as { runDir?: string }).runDir;
      if (method === 'dataset/changed' && (this.runDir === undefined || run === this.runDir)) void this.load();
    });
    this.channel.ready();
    void this.load();
  }

  private async load(): Promise<void> {
    try {
      this.list = await this.channel.request('dataset/list', { ...(this.runDir ? { runDir: this.runDir } : {}), filters: this.filters, limit: this.limit });
      this.error = undefined;
    } catch (err) {
      this.error = err instanceof Error ? err.message : String(err);
    }
  }

  private setFilter(change: Partial<DatasetFilterParams>): void {
    const next: DatasetFilterParams = { ...this.filters, ...change };
    for (const [k, v] of Object.entries(next)) if (v === undefined || v === false || (Array.isArray(v) && v.length === 0)) delete (next as Record<string, unknown>)[k];
    if (next.verdict === 'any') delete next.verdict;
    this.filters = next;
    this.limit = pageSize;
    this.channel.setState({ ...(this.runDir ? { runDir: this.runDir } : {}), filters: next });
    void this.load();
  }

  private async curate(item: DatasetItem, action: 'accept' | 'reject' | 'clear'): Promise<void> {
    try {
      await this.channel.request('curation/apply', { runDir: item.runDir, target: item.target, action });
      await this.load();
    } catch (err) {
      this.error = err instanceof Error ? err.message : String(err);
    }
  }

  override render(): TemplateResult {
    const d = this.list;
    if (!d) return this.error ? html`<div class="problem" id="problem">${this.error}</div>` : html`<div class="loading">Loading the dataset…</div>`;
    const runs = d.runs.filter((r) => r.curated > 0 || r.problem);
    return html`<div class="page">
      <h1>Dataset ${this.runDir ? html`<span class="dim">of run ${this.runDir}</span>` : nothing}</h1>
      <p class="summary-line"><span id="dataset-total">${d.total}</span> curated across ${runs.length} run${runs.length === 1 ? '' : 's'}
        · <span id="dataset-matching">${d.matching}</span> match${d.items.length < d.matching ? html` (first ${d.items.length} shown)` : nothing}</p>
      ${d.bundleNote ? html`<p class="dim" id="bundle-note">${d.bundleNote}</p>` : nothing}
      ${this.error ? html`<p class="problem" id="problem">${this.error}</p>` : nothing}
      ${runs.some((r) => r.problem) ? html`<ul class="hits">${runs.filter((r) => r.problem).map((r) => html`<li class="problem">${r.runName}: ${r.problem}</li>`)}</ul>` : nothing}
      ${this.filterBar(d)}
      <p class="summary-line" id="export-args">export these: <code>coevolve export RUN_DIR --format chat-jsonl --out DIR ${d.exportArgs.args.join(' ')}</code>
        ${d.exportArgs.unsupported.length ? html`<span class="dim">(the CLI has no flag for: ${d.exportArgs.unsupported.join(', ')})</span>` : nothing}</p>
      ${d.total === 0 ? html`<p class="dim" id="no-items">Nothing curated yet: accept, reject or label rollouts in the editor${this.channel.can('curation/apply') ? ' or here' : ''}.</p>` : nothing}
      <table class="grid" id="dataset-table">
        <thead><tr><th>run</th><th>kind</th><th>target</th><th class="num">gen</th><th>family</th><th>verdict</th><th class="num">reward</th><th class="num">pair success</th><th>tags and labels</th><th>export</th><th>decided</th>${this.channel.can('curation/apply') ? html`<th></th>` : nothing}</tr></thead>
        <tbody>${d.items.map((i) => this.row(i))}</tbody>
      </table>
      ${d.items.length < d.matching ? html`<button class="more" id="more" @click=${() => { this.limit += pageSize; void this.load(); }}>Show more (${d.items.length} of ${d.matching})</button>` : nothing}
    </div>`;
  }

  private row(i: DatasetItem): TemplateResult {
    const target = i.target.kind === 'rollout' && i.generation !== undefined
      ? html`<a class="item-link" href=${browserLinks.rollout(i.runDir, i.generation, i.target.id)}>${i.target.id}</a>`
      : html`<span>${i.target.id}</span>`;
    const note = [i.verdictNote, ...i.comments].filter((x): x is string => Boolean(x));
    return html`<tr class="dataset-row" data-kind=${i.target.kind} data-id=${i.target.id} data-run=${i.runDir}>
      <td><a href=${browserLinks.run(i.runDir)}>${i.runName}</a></td>
      <td>${i.target.kind}</td>
      <td>${target}${note.length ? html`<div class="dim note">${note.join(' · ')}</div>` : nothing}</td>
      <td class="num">${i.generation ?? ''}</td><td>${i.family ?? ''}</td>
      <td class=${i.verdict === 'accepted' ? 'ok verdict' : i.verdict === 'rejected' ? 'bad verdict' : 'dim verdict'}>${i.verdict ?? 'no verdict'}</td>
      <td class="num">${i.reward === undefined ? '' : i.reward.toFixed(2)}</td>
      <td class="num">${i.successRate === undefined ? '' : `${Math.round(i.successRate * 100)}%${i.inBand ? ' · in band' : ''}`}</td>
      <td>${i.tags.map((x) => html`<span class="tag" title=${x}>${tagLabel(x)}</span>`)}${i.labels.map((x) => html`<span class="tag">${x}</span>`)}</td>
      <td class=${i.exportExclusion ? 'dim export' : 'ok export'}>${i.exportExclusion ? `left out: ${i.exportExclusion}` : 'exported'}</td>
      <td class="dim">${i.updatedAt.replace('T', ' ').slice(0, 16)}</td>
      ${this.channel.can('curation/apply') ? html`<td class="actions">
        <button class="accept" ?disabled=${i.verdict === 'accepted'} @click=${() => void this.curate(i, 'accept')}>Accept</button>
        <button class="reject" ?disabled=${i.verdict === 'rejected'} @click=${() => void this.curate(i, 'reject')}>Reject</button>
        <button class="clear" ?disabled=${!i.verdict} @click=${() => void this.curate(i, 'clear')}>Clear</button></td>` : nothing}
    </tr>`;
  }

  private filterBar(d: DatasetList): TemplateResult {
    const f = this.filters;
    const select = (id: string, label: string, options: string[], value: string, set: (v: string) => void, any = 'any'): TemplateResult => html`<label>${label}
      <select id=${id} @change=${(e: Event) => set((e.target as HTMLSelectElement).value)}>
        <option value="" ?selected=${value === ''}>${any}</option>
        ${options.map((o) => html`<option value=${o} ?selected=${o === value}>${o}</option>`)}
      </select></label>`;
    return html`<div class="filters" id="filters">
      ${select('filter-verdict', 'verdict', ['accepted', 'rejected'], f.verdict === 'accepted' || f.verdict === 'rejected' ? f.verdict : '', (v) => this.setFilter({ verdict: v === '' ? undefined : (v as 'accepted') }))}
      <label>in band<input id="filter-in-band" type="checkbox" .checked=${f.inBand === true} @change=${(e: Event) => this.setFilter({ inBand: (e.target as HTMLInputElement).checked })}></label>
      <label>reward at least<input id="filter-min-reward" type="number" step="0.05" .value=${f.minReward === undefined ? '' : String(f.minReward)}
        @change=${(e: Event) => { const v = (e.target as HTMLInputElement).value; this.setFilter({ minReward: v === '' ? undefined : Number(v) }); }}></label>
      ${select('filter-tag', 'tag or label', d.choices.tags, f.tags?.[0] ?? '', (v) => this.setFilter({ tags: v === '' ? [] : [v] }))}
      ${select('filter-family', 'family', d.choices.families, f.families?.[0] ?? '', (v) => this.setFilter({ families: v === '' ? [] : [v] }))}
      ${select('filter-generation', 'generation', d.choices.generations.map(String), f.generations?.length === 1 ? String(f.generations[0]) : '', (v) => this.setFilter({ generations: v === '' ? [] : [Number(v)] }))}
    </div>`;
  }
}

customElements.define('coevolve-dataset-page', DatasetPage);
