import { html, type TemplateResult } from 'lit';
import type { DiffPart } from '../protocol.js';

/** A unified line diff; unchanged runs longer than 6 lines are folded to their first and last 3. */
export function diffView(parts: DiffPart[]): TemplateResult {
  const lines: { sign: string; text: string; cls: string }[] = [];
  for (const p of parts) {
    const body = p.value.endsWith('\n') ? p.value.slice(0, -1) : p.value;
    const split = body.split('\n');
    if (!p.added && !p.removed && split.length > 6) {
      for (const t of split.slice(0, 3)) lines.push({ sign: ' ', text: t, cls: 'same' });
      lines.push({ sign: '⋯', text: `${split.length - 6} unchanged lines`, cls: 'fold' });
      for (const t of split.slice(-3)) lines.push({ sign: ' ', text: t, cls: 'same' });
      continue;
    }
    for (const t of split) lines.push({ sign: p.added ? '+' : p.removed ? '-' : ' ', text: t, cls: p.added ? 'add' : p.removed ? 'del' : 'same' });
  }
  return html`<pre class="diff">${lines.map((l) => html`<div class=${l.cls}><span class="sign">${l.sign}</span>${l.text}</div>`)}</pre>`;
}
