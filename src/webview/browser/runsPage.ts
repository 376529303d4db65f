// The browser host's runs list: every run the server (or the bundle) has, newest first, with status, generations,
// rollouts and the last generation's success; live while runs write (a run/changed notification reloads it).
import '../render/cspWatch.js';
import { html, LitElement, nothing, type TemplateResult } from 'lit';
import type { RunChoice } from '../protocol.js';
import { HostChannel } from '../rpc.js';
import { browserLinks } from '../browserLinks.js';
import '../styles/common.css';
import './pages.css';

const pct = (x: number | undefined): string => (x === undefined ? '–' : `${Math.round(x * 100)}%`);

export class RunsPage extends LitElement {
  static override properties = { runs: { state: true }, error: { state: true } };
  declare runs: RunChoice[] | undefined;
  declare error: string | undefined;
  private channel!: HostChannel;
  private reloading = false;

  protected override createRenderRoot(): HTMLElement {
    return this;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.channel = new HostChannel();
    this.channel.onNotification((method) => {
      if (method === 'run/changed') void this.load();
    });
    this.channel.ready();
    void this.load();
  }

  private async load(): Promise<void> {
    if (this.reloading) return;
    this.reloading = true;
    try {
      this.runs = await this.channel.request('runs/list', {});
      this.error = undefined;
    } catch (err) {
      this.error = err instanceof Error ? err.message : String(err);
    } finally {
      this.reloading = false;
    }
  }

  override render(): TemplateResult {
    if (this.error) return html`<div class="problem" id="problem">${this.error}</div>`;
    const runs = this.runs;
    if (!runs) return html`<div class="loading">Loading runs…</div>`;
    return html`<div class="page">
      <h1>Runs <span class="dim" id="run-count">${runs.length}</span></h1>
      ${runs.length === 0 ? html`<p class="dim" id="no-runs">No run directories here yet.</p>` : nothing}
      <table class="grid" id="runs-table">
        <thead><tr><th>run</th><th>status</th><th>started</th><th class="num">generations</th><th class="num">rollouts</th><th class="num">last success</th><th>id</th><th></th></tr></thead>
        <tbody>${runs.map((r) => html`<tr class="run-row" data-run=${r.runDir}>
          <td><a class="run-link" href=${browserLinks.run(r.runDir)}>${r.name}</a></td>
          <td class=${`status-${r.status}`}>${r.status}</td>
          <td>${r.startedAt.replace('T', ' ').slice(0, 16)}</td>
          <td class="num">${r.generations}</td>
          <td class="num">${r.rollouts}</td>
          <td class="num">${pct(r.lastSuccessRate)}</td>
          <td class="dim">${r.runId}</td>
          <td><a href=${browserLinks.dashboard(r.runDir)}>dashboard</a></td>
        </tr>`)}</tbody>
      </table>
    </div>`;
  }
}

customElements.define('coevolve-runs-page', RunsPage);
