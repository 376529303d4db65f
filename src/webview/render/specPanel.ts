import { html, nothing, type TemplateResult } from 'lit';
import { operatorLabel } from '../names.js';
import type { SpecView } from '../protocol.js';
import { diffView } from './diffView.js';

const show = (v: number | string | null): string => (v === null ? '—' : String(v));

/** "horizon 2 → 3 · difficulty 2 → 2.6": what a child changed, in knob terms, before any line of YAML. */
export function knobSummary(s: SpecView): TemplateResult {
  const knobs = s.knobChanges ?? [];
  const d = s.difficulty;
  const moved = d && d.parent !== undefined && d.parent !== d.value;
  return html`<div class="knob-summary" id=${`knobs-${s.kind}`}>
    ${s.operator ? html`<span class="op">${operatorLabel(s.operator)}</span>` : nothing}
    ${knobs.length === 0 ? html`<span class="dim">no knob moved</span>` : knobs.map((k) => html`<span class="knob"><b>${k.knob}</b> ${show(k.from)} → ${show(k.to)}</span>`)}
    ${moved ? html`<span class="knob"><b>design difficulty</b> ${d.parent} → ${d.value}</span>` : nothing}
  </div>`;
}

function fieldList(s: SpecView): TemplateResult {
  const fields = s.fieldChanges ?? [];
  if (fields.length === 0) return html`<p class="dim">Nothing but the lineage differs from the parent.</p>`;
  return html`<ul class="field-changes">${fields.map((f) => html`<li><code>${f.field}</code> <span class="add-n">+${f.added}</span> <span class="del-n">−${f.removed}</span> ${f.added + f.removed > 40 ? html`<span class="dim">(regenerated)</span>` : nothing}</li>`)}</ul>`;
}

/** One spec version: who made it from whom, the knob summary, the changed fields, then the line diff on demand. */
export function specPanel(s: SpecView): TemplateResult {
  const icon = s.kind === 'environment' ? 'server-environment' : 'account';
  const changed = (s.fieldChanges ?? []).reduce((n, f) => n + f.added + f.removed, 0);
  return html`<div class="spec" data-spec=${s.id}>
    <h2><span class="codicon codicon-${icon}"></span> ${s.name ?? s.id}</h2>
    <p class="dim"><code class="id">${s.id}</code> · ${s.parent ? html`from <code>${s.parent}</code> in generation ${s.generation}` : 'a seed (no parent)'}${s.difficulty && !s.parent ? ` · design difficulty ${s.difficulty.value}` : ''}</p>
    ${s.problem
      ? html`<p class="bad">${s.problem}</p>`
      : s.diff
        ? html`${knobSummary(s)}${fieldList(s)}
          <details class="diff-details"><summary>Line diff against the parent (${changed} lines changed)</summary>${diffView(s.diff)}</details>
          <details><summary>Full YAML</summary><pre class="code">${s.text}</pre></details>`
        : html`<pre class="code">${s.text}</pre>`}
  </div>`;
}
