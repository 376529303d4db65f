// The rollout viewer: the dialogue and tool calls of one rollout, step controls with keyboard navigation, search,
// reward breakdown, verifier output, specs with their diffs, raw JSON. Steps are virtualised so a 5,000-step
// rollout paints its first screen at once. All model and user text goes through Lit text bindings.
import '../render/cspWatch.js';
import '@lit-labs/virtualizer';
// Its default layout, which it imports with import(): bundled here, so a split build does not fetch it as a chunk of its own.
import '@lit-labs/virtualizer/layouts/flow.js';
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-tabs/index.js';
import '@vscode-elements/elements/dist/vscode-tab-header/index.js';
import '@vscode-elements/elements/dist/vscode-tab-panel/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import type { LitVirtualizer } from '@lit-labs/virtualizer';
import { html, LitElement, nothing, type PropertyValues, type TemplateResult } from 'lit';
import type { AtifStep } from '../../core/rollout/trajectory.js';
import type { RolloutPanelState, RolloutView } from '../protocol.js';
import { factsPanel } from '../render/factsPanel.js';
import { stepText } from '../render/highlight.js';
import { rewardBreakdown } from '../render/rewardPanel.js';
import { specPanel } from '../render/specPanel.js';
import { isErrorStep, stepView } from '../render/stepView.js';
import { HostChannel, initialState } from '../rpc.js';
import { tagLabel, truncationLabel } from '../names.js';
import '../styles/common.css';
import '../styles/rolloutViewer.css';

const tabs = ['transcript', 'reward', 'user', 'specs', 'json'] as const;
type Tab = (typeof tabs)[number];
const speeds = [0.5, 1, 2, 4, 8];

declare global {
  interface Window {
    /** Timings of the first paint, read by the benchmark and the e2e flow. */
    __coevolvePaint?: { dataMs: number; paintedMs: number; steps: number };
  }
}

export class RolloutViewer extends LitElement {
  static override properties = {
    view: { state: true },
    error: { state: true },
    current: { state: true },
    tab: { state: true },
    query: { state: true },
    playing: { state: true },
    speed: { state: true },
  };

  declare view: RolloutView | undefined;
  declare error: string | undefined;
  /** Index into steps of the current step. */
  declare current: number;
  declare tab: Tab;
  declare query: string;
  declare playing: boolean;
  declare speed: number;

  private channel!: HostChannel;
  private state!: RolloutPanelState;
  private hits: number[] = [];
  private texts: string[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private painted = false;

  constructor() {
    super();
    this.current = 0;
    this.tab = 'transcript';
    this.query = '';
    this.playing = false;
    this.speed = 2;
  }

  // Light DOM: the page's stylesheets (the bundle's CSS, codicons) apply, and tests can reach every node.
  protected override createRenderRoot(): HTMLElement {
    return this;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.channel = new HostChannel();
    const saved = this.channel.getState<RolloutPanelState>();
    const state = saved ?? initialState<RolloutPanelState>(this);
    if (!state) {
      this.error = 'This panel does not know which rollout to show. Open a rollout from the Runs view.';
      return;
    }
    this.state = state;
    this.tab = tabs.includes(state.tab as Tab) ? (state.tab as Tab) : 'transcript';
    this.channel.onNotification((method, params) => {
      if (method === 'rollout/changed') void this.load();
      if (method === 'view/goToStep') this.goToStepId((params as { step: number }).step);
    });
    document.addEventListener('keydown', this.onKey);
    this.channel.ready();
    void this.load();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    document.removeEventListener('keydown', this.onKey);
    this.stop();
  }

  private async load(): Promise<void> {
    try {
      const view = await this.channel.request('rollout/get', { runDir: this.state.runDir, generation: this.state.generation, rolloutId: this.state.rolloutId });
      performance.mark('coevolve:data');
      this.texts = (view.record?.steps ?? []).map(stepText);
      this.view = view;
      // The browser host's tab (the editor's is set by its host from the same field).
      if (view.tabTitle) document.title = `${view.tabTitle} · Coevolve`;
      this.error = undefined;
      const steps = view.record?.steps ?? [];
      const wanted = this.state.step;
      if (wanted !== undefined && wanted > 0) this.current = Math.max(0, steps.findIndex((s) => s.step_id === wanted));
      this.updateMatches();
    } catch (err) {
      this.error = err instanceof Error ? err.message : String(err);
    }
  }

  private get steps(): AtifStep[] {
    return this.view?.record?.steps ?? [];
  }

  private saveState(): void {
    const step = this.steps[this.current]?.step_id;
    this.state = { ...this.state, ...(step !== undefined ? { step } : {}), tab: this.tab };
    this.channel.setState(this.state);
  }

  private go(index: number, scroll = true): void {
    const n = this.steps.length;
    if (n === 0) return;
    this.current = Math.min(n - 1, Math.max(0, index));
    this.saveState();
    if (scroll) void this.updateComplete.then(() => this.scrollToCurrent());
  }

  private goToStepId(stepId: number): void {
    const i = this.steps.findIndex((s) => s.step_id === stepId);
    if (i >= 0) {
      this.tab = 'transcript';
      this.go(i);
    }
  }

  private scrollToCurrent(): void {
    const v = this.querySelector<LitVirtualizer>('lit-virtualizer');
    v?.element(this.current)?.scrollIntoView({ block: 'center' });
  }

  /**
   * The first step that went wrong; when no step did, the failure is the verifier's (its output on the reward tab)
   * or the user's (the facts they never told, on the user tab).
   */
  private firstError(): void {
    const fromSummary = this.view?.summary?.firstErrorStep;
    const i = fromSummary !== undefined ? this.steps.findIndex((s) => s.step_id === fromSummary) : this.steps.findIndex(isErrorStep);
    if (i >= 0) return this.go(i);
    const r = this.view?.record;
    if (!r) return;
    const verifierFailed = r.verifier ? r.verifier.exitCode !== 0 || r.verifier.reward < 0.999 : true;
    this.tab = verifierFailed ? 'reward' : 'user';
    this.saveState();
    void this.updateComplete.then(() => this.querySelector<HTMLElement>(verifierFailed ? '#verifier-output' : '#facts')?.scrollIntoView({ block: 'start' }));
  }

  /** Why the run failed when no step did, for the "First error" button's title; undefined on a success. */
  private failureWithoutErrorStep(): string | undefined {
    const r = this.view?.record;
    if (!r || r.success) return undefined;
    if (!r.verifier) return 'the verifier did not run';
    if (r.verifier.exitCode !== 0 || r.verifier.reward < 0.999) return 'the verifier failed: show its output';
    return 'the user\'s goal was not met: show the hidden facts';
  }

  private nextMatch(dir: 1 | -1): void {
    if (this.hits.length === 0) return;
    const next = dir === 1 ? this.hits.find((m) => m > this.current) ?? this.hits[0] : [...this.hits].reverse().find((m) => m < this.current) ?? this.hits.at(-1);
    if (next !== undefined) this.go(next);
  }

  private updateMatches(): void {
    const q = this.query.trim().toLowerCase();
    this.hits = q ? this.texts.flatMap((t, i) => (t.includes(q) ? [i] : [])) : [];
  }

  private togglePlay(): void {
    if (this.playing) this.stop();
    else {
      this.playing = true;
      if (this.current >= this.steps.length - 1) this.go(0);
      this.scheduleNext();
    }
  }

  /** Plays with the recorded timing between steps, scaled by the speed and capped so long waits stay watchable. */
  private scheduleNext(): void {
    const a = this.steps[this.current];
    const b = this.steps[this.current + 1];
    if (!a || !b) return this.stop();
    const gap = Math.min(3000, Math.max(150, new Date(b.timestamp).getTime() - new Date(a.timestamp).getTime()));
    this.timer = setTimeout(() => {
      this.go(this.current + 1);
      if (this.playing) this.scheduleNext();
    }, gap / this.speed);
  }

  private stop(): void {
    this.playing = false;
    clearTimeout(this.timer);
  }

  private readonly onKey = (e: KeyboardEvent): void => {
    const target = e.composedPath()[0] as HTMLElement | undefined;
    if (target && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.isContentEditable)) {
      if (e.key === 'Escape') target.blur();
      if (e.key === 'Enter') this.nextMatch(e.shiftKey ? -1 : 1);
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const keys: Record<string, () => void> = {
      j: () => this.go(this.current + 1),
      ArrowDown: () => this.go(this.current + 1),
      k: () => this.go(this.current - 1),
      ArrowUp: () => this.go(this.current - 1),
      n: () => this.nextMatch(1),
      p: () => this.nextMatch(-1),
      ' ': () => this.togglePlay(),
      e: () => this.firstError(),
      g: () => this.go(0),
      Home: () => this.go(0),
      G: () => this.go(this.steps.length - 1),
      End: () => this.go(this.steps.length - 1),
      '/': () => this.querySelector<HTMLElement>('#search')?.focus(),
    };
    const curation: Record<string, () => void> = {
      a: () => this.curate(this.view?.curation?.verdict === 'accepted' ? 'clear' : 'accept'),
      x: () => this.curate(this.view?.curation?.verdict === 'rejected' ? 'clear' : 'reject'),
      l: () => this.curate('label'),
      c: () => this.curate('comment'),
    };
    const curate = curation[e.key];
    if (curate) {
      e.preventDefault();
      return curate();
    }
    const action = keys[e.key];
    if (action && this.tab === 'transcript') {
      e.preventDefault();
      this.stopIfManual(e.key);
      action();
    }
  };

  private stopIfManual(key: string): void {
    if (key !== ' ' && this.playing) this.stop();
  }

  protected override updated(changed: PropertyValues): void {
    if (!this.painted && changed.has('view') && this.view) {
      this.painted = true;
      performance.mark('coevolve:rendered');
      // Two frames: the virtualizer lays out its first screen in the frame after the data lands.
      requestAnimationFrame(() => requestAnimationFrame(() => {
        performance.mark('coevolve:painted');
        const data = performance.getEntriesByName('coevolve:data')[0]?.startTime ?? 0;
        window.__coevolvePaint = { dataMs: data, paintedMs: performance.now(), steps: this.steps.length };
        if (this.current > 0) this.scrollToCurrent();
      }));
    }
  }

  override render(): TemplateResult {
    if (this.error) return html`<div class="problem" id="problem"><span class="codicon codicon-warning"></span> ${this.error}</div>`;
    const v = this.view;
    if (!v) return html`<div class="loading"><span class="codicon codicon-loading codicon-modifier-spin"></span> Loading rollout…</div>`;
    return html`${this.header(v)}
      <vscode-tabs id="tabs" selected-index=${tabs.indexOf(this.tab)} @vsc-tabs-select=${(e: CustomEvent<{ selectedIndex: number }>) => {
        this.tab = tabs[e.detail.selectedIndex] ?? 'transcript';
        this.saveState();
      }}>
        <vscode-tab-header slot="header" data-tab="transcript">Transcript</vscode-tab-header>
        <vscode-tab-panel>${this.tab === 'transcript' ? this.transcript(v) : nothing}</vscode-tab-panel>
        <vscode-tab-header slot="header" data-tab="reward">Reward &amp; verifier</vscode-tab-header>
        <vscode-tab-panel>${this.tab === 'reward' ? this.reward(v) : nothing}</vscode-tab-panel>
        <vscode-tab-header slot="header" data-tab="user">User &amp; facts</vscode-tab-header>
        <vscode-tab-panel>${this.tab === 'user' ? this.userTab(v) : nothing}</vscode-tab-panel>
        <vscode-tab-header slot="header" data-tab="specs">Specs</vscode-tab-header>
        <vscode-tab-panel>${this.tab === 'specs' ? this.specs(v) : nothing}</vscode-tab-panel>
        <vscode-tab-header slot="header" data-tab="json">Raw JSON</vscode-tab-header>
        <vscode-tab-panel>${this.tab === 'json' ? this.rawJson(v) : nothing}</vscode-tab-panel>
      </vscode-tabs>`;
  }

  private header(v: RolloutView): TemplateResult {
    const r = v.record;
    const s = v.summary;
    const outcome = v.running ? 'running' : r?.status === 'error' ? 'error' : r?.success ? 'passed' : 'failed';
    const icon = { running: 'loading codicon-modifier-spin', error: 'warning', passed: 'pass', failed: 'error' }[outcome];
    const trial = r?.trial ?? s?.trial;
    return html`<header class="rollout-head">
      <div class="title">
        <span class="codicon codicon-${icon} outcome-${outcome}"></span>
        <h1>${v.pairLabel ? html`${v.pairLabel.env} <span class="dim">×</span> ${v.pairLabel.user}` : v.ref.rolloutId}</h1>
        <span class="outcome outcome-${outcome}" id="outcome">${outcome}</span>
        ${r?.hint ? html`<vscode-badge>hint play</vscode-badge>` : nothing}
        ${r?.status === 'truncated' ? this.truncationBadge(r.truncationReason) : nothing}
        ${r?.unfinished ? html`<vscode-badge id="unfinished" title=${r.unfinished.note}>unfinished: ${r.unfinished.step}</vscode-badge>` : nothing}
      </div>
      <div class="facts">
        <span id="run-label">${v.runLabel ?? v.runName} · generation ${v.ref.generation}${trial !== undefined ? ` · rollout ${trial}` : ''}</span>
        <span class="dim" title="rollout id"><code>${v.ref.rolloutId}</code></span>
        ${r ? html`<span>reward <b>${r.rewards.total.toFixed(2)}</b></span>
          <span>${r.steps.length} steps</span><span>${(r.durationMs / 1000).toFixed(1)} s</span>
          <span>${r.usage.promptTokens + r.usage.completionTokens} tokens${r.usage.costUsd ? ` · $${r.usage.costUsd.toFixed(4)}` : ''}</span>
          <span title="role implementations">${r.roles.agent}</span>` : nothing}
        ${s?.tags.length ? html`<span>${s.tags.map((t) => html`<span class="tag" title=${t}>${tagLabel(t)}</span>`)}</span>` : nothing}
      </div>
      <div class="actions">
        ${this.channel.can('rollout/rerun') ? html`<vscode-button secondary icon="debug-restart" id="rerun" @click=${() => this.channel.command('rollout/rerun', v.ref)} ?disabled=${v.running}>Re-run</vscode-button>` : nothing}
        ${this.channel.can('rollout/replay') ? html`<vscode-button secondary icon="terminal" id="replay" @click=${() => this.channel.command('rollout/replay', v.ref)} ?disabled=${v.running}>Replay in terminal</vscode-button>` : nothing}
        ${this.channel.can('file/open') ? html`<vscode-button secondary icon="json" @click=${() => this.channel.command('file/open', { path: v.filePath })} ?disabled=${v.running}>Open file</vscode-button>` : nothing}
        <span class="actions-gap"></span>
        ${this.channel.can('rollout/curate') ? this.curationControls(v) : nothing}
      </div>
    </header>`;
  }

  private truncationBadge(reason: string | undefined): TemplateResult {
    const label = truncationLabel(reason);
    return html`<vscode-badge id="truncation" title=${label.title}>${label.text}</vscode-badge>`;
  }

  private curate(action: 'accept' | 'reject' | 'clear' | 'label' | 'comment'): void {
    const v = this.view;
    if (!v || v.running) return;
    this.channel.command('rollout/curate', { ...v.ref, action });
  }

  /** Accept / Reject (toggling back to none) and Label / Comment, as in the Runs tree; the state comes from curation.jsonl. */
  private curationControls(v: RolloutView): TemplateResult {
    const c = v.curation;
    const verdict = c?.verdict;
    return html`<span class="curation" id="curation" role="group" aria-label="Curation">
      <vscode-button id="accept" icon="thumbsup" ?secondary=${verdict !== 'accepted'} title="Accept this rollout for the dataset (a)" ?disabled=${v.running} @click=${() => this.curate(verdict === 'accepted' ? 'clear' : 'accept')}>${verdict === 'accepted' ? 'Accepted' : 'Accept'}</vscode-button>
      <vscode-button id="reject" icon="thumbsdown" ?secondary=${verdict !== 'rejected'} title="Reject this rollout (x)" ?disabled=${v.running} @click=${() => this.curate(verdict === 'rejected' ? 'clear' : 'reject')}>${verdict === 'rejected' ? 'Rejected' : 'Reject'}</vscode-button>
      <vscode-button id="label" icon="tag" secondary title="Add a label (l)" ?disabled=${v.running} @click=${() => this.curate('label')}>Label…</vscode-button>
      <vscode-button id="comment" icon="comment" secondary title="Comment (c)" ?disabled=${v.running} @click=${() => this.curate('comment')}>Comment…</vscode-button>
      ${c?.labels.length ? html`<span class="dim" id="curation-labels">${c.labels.map((l) => html`<span class="tag">${l}</span>`)}</span>` : nothing}
      ${c?.comments ? html`<span class="dim">${c.comments} comment${c.comments === 1 ? '' : 's'}</span>` : nothing}
    </span>`;
  }

  private transcript(v: RolloutView): TemplateResult {
    if (v.running) return html`<div class="loading" id="running"><span class="codicon codicon-loading codicon-modifier-spin"></span> This rollout is still running; it appears here as soon as it finishes.</div>`;
    const steps = this.steps;
    const q = this.query.trim();
    const matchSet = new Set(this.hits);
    const t0 = steps[0] ? new Date(steps[0].timestamp).getTime() : 0;
    const errorCount = steps.filter(isErrorStep).length;
    return html`<div class="toolbar" role="toolbar" aria-label="Step controls">
        <vscode-button icon="debug-step-back" secondary title="Previous step (k)" id="prev" @click=${() => this.go(this.current - 1)}></vscode-button>
        <vscode-button icon=${this.playing ? 'debug-pause' : 'play'} title="Play / pause (space)" id="play" @click=${() => this.togglePlay()}></vscode-button>
        <vscode-button icon="debug-step-over" secondary title="Next step (j)" id="next" @click=${() => this.go(this.current + 1)}></vscode-button>
        <vscode-single-select id="speed" title="Playback speed" @change=${(e: Event) => (this.speed = Number((e.target as HTMLSelectElement).value))}>
          ${speeds.map((s) => html`<vscode-option value=${String(s)} ?selected=${s === this.speed}>${s}×</vscode-option>`)}
        </vscode-single-select>
        <vscode-button icon="error" secondary title=${errorCount ? 'Jump to the first error or failed command (e)' : `No step failed; ${this.failureWithoutErrorStep() ?? 'nothing went wrong'} (e)`} id="first-error" ?disabled=${errorCount === 0 && !this.failureWithoutErrorStep()} @click=${() => this.firstError()}>First error</vscode-button>
        <span class="position" id="position">step ${steps[this.current]?.step_id ?? 0} / ${steps.length}${errorCount ? html` · <span class="bad">${errorCount} with errors</span>` : nothing}</span>
        <span class="spacer"></span>
        <vscode-textfield id="search" placeholder="Search (/)" .value=${this.query} @input=${(e: Event) => {
          this.query = (e.target as HTMLInputElement).value;
          this.updateMatches();
        }}><span slot="content-after" class="dim" id="match-count">${q ? `${this.hits.length} match${this.hits.length === 1 ? '' : 'es'}` : ''}</span></vscode-textfield>
        <vscode-button icon="arrow-up" secondary title="Previous match (p)" @click=${() => this.nextMatch(-1)} ?disabled=${this.hits.length === 0}></vscode-button>
        <vscode-button icon="arrow-down" secondary title="Next match (n)" @click=${() => this.nextMatch(1)} ?disabled=${this.hits.length === 0}></vscode-button>
      </div>
      <div class="keys dim">j/k step · space play · e first error · n/p next/previous match · / search · a accept · x reject · l label · c comment</div>
      <lit-virtualizer class="steps" id="steps" scroller .items=${steps}
        .renderItem=${(s: AtifStep, i: number) => html`<div class="step-wrap" @click=${() => this.go(i, false)}>${stepView(s, { current: i === this.current, future: i > this.current, match: matchSet.has(i) }, q, t0)}</div>`}></lit-virtualizer>`;
  }

  private reward(v: RolloutView): TemplateResult {
    const r = v.record;
    if (!r) return html`<div class="loading">No reward yet: the rollout is still running.</div>`;
    return html`<section class="reward" id="reward">
      ${rewardBreakdown(r, v.rewardWeights, v.rubric)}
      ${r.verifier ? html`<h2>Verifier</h2>
        <p><span class="exit ${r.verifier.exitCode === 0 ? 'ok' : 'bad'}">exit ${r.verifier.exitCode}</span> · ${r.verifier.durationMs} ms · score ${r.verifier.reward.toFixed(2)}${r.verifier.timedOut ? ' · timed out' : ''}
        ${Object.keys(r.verifier.detail).length ? html` · ${Object.entries(r.verifier.detail).map(([k, x]) => `${k} = ${x}`).join(', ')}` : nothing}</p>
        <div class="terminal ${r.verifier.exitCode === 0 ? '' : 'failed'}" id="verifier-output"><pre class="term-out">${r.verifier.stdout || '(no output)'}</pre>${r.verifier.stderr ? html`<pre class="term-err">${r.verifier.stderr}</pre>` : nothing}</div>` : html`<p class="dim" id="verifier-output">The verifier did not run${r.error ? `: ${r.error}` : ''}.</p>`}
      ${r.error ? html`<h2>Error</h2><pre class="term-err">${r.error}</pre>` : nothing}
    </section>`;
  }

  private userTab(v: RolloutView): TemplateResult {
    if (!v.record) return html`<div class="loading">The rollout is still running.</div>`;
    return factsPanel(v.record, v.facts, (step) => this.goToStepId(step));
  }

  private specs(v: RolloutView): TemplateResult {
    return html`<section class="specs" id="specs">${[v.env, v.user].map((s) => (s ? specPanel(s) : nothing))}</section>`;
  }

  private rawJson(v: RolloutView): TemplateResult {
    const text = JSON.stringify(v.record ?? v.summary, null, 2);
    return html`<div class="raw"><pre class="code" id="raw-json">${text}</pre></div>`;
  }
}

customElements.define('coevolve-rollout-viewer', RolloutViewer);
