import { html, type TemplateResult } from 'lit';
import { cssom } from './cssom.js';

/** The span a bar is drawn on; it always contains 0, so negative and positive values share one zero line. */
export interface BarScale {
  lo: number;
  hi: number;
}

/** A scale holding every value and the natural [0, 1] (or [lo, hi] given), never clamping a value to fit. */
export function scaleFor(values: number[], base: BarScale = { lo: 0, hi: 1 }): BarScale {
  const finite = values.filter(Number.isFinite);
  return { lo: Math.min(base.lo, 0, ...finite), hi: Math.max(base.hi, 0, ...finite) };
}

/** Where the fill starts and how wide it is, as fractions of the track (pure, unit-tested). */
export function barGeometry(value: number, scale: BarScale): { left: number; width: number; zero: number } {
  const span = scale.hi - scale.lo || 1;
  const v = Number.isFinite(value) ? value : 0;
  const zero = (0 - scale.lo) / span;
  const from = (Math.min(0, v) - scale.lo) / span;
  return { left: from, width: Math.abs(v) / span, zero };
}

const pct = (x: number): string => `${(x * 100).toFixed(3)}%`;

/**
 * A horizontal bar drawn to scale: the fill runs from the zero line to the value (leftwards when negative). The
 * value and the scale are in data attributes, so a browser test can check that the rendered width matches.
 */
export function valueBar(value: number, scale: BarScale, label: string): TemplateResult {
  const g = barGeometry(value, scale);
  return html`<span class="vbar" role="img" aria-label=${`${label}: ${value.toFixed(3)}`} data-value=${String(value)} data-lo=${String(scale.lo)} data-hi=${String(scale.hi)}>
    <span class="vbar-fill ${value < 0 ? 'negative' : ''}" ${cssom({ left: pct(g.left), width: pct(g.width) })}></span>
    ${scale.lo < 0 ? html`<span class="vbar-zero" ${cssom({ left: pct(g.zero) })}></span>` : ''}
  </span>`;
}
