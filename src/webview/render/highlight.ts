import { html, type TemplateResult } from 'lit';

/**
 * Text with the search query marked. Every piece goes through a Lit text binding, so markup in model or user text
 * (`<script>`, `<img onerror>`) stays text.
 */
export function highlight(text: string, query: string): TemplateResult | string {
  if (!query) return text;
  const lower = text.toLowerCase();
  const q = query.toLowerCase();
  let at = lower.indexOf(q);
  if (at < 0) return text;
  const parts: (TemplateResult | string)[] = [];
  let from = 0;
  while (at >= 0) {
    parts.push(text.slice(from, at), html`<mark>${text.slice(at, at + q.length)}</mark>`);
    from = at + q.length;
    at = lower.indexOf(q, from);
  }
  parts.push(text.slice(from));
  return html`${parts}`;
}

// One definition with the run-wide transcript search (src/viewdata/transcriptSearch.ts).
export { stepText } from '../../viewdata/stepText.js';
