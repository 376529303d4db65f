import { html, nothing, type TemplateResult } from 'lit';
import type { RolloutRecord } from '../../core/rollout/trajectory.js';
import type { RewardWeights, RolloutView } from '../protocol.js';
import { outOfRangeReason, rewardTerms } from './rewardTerms.js';
import { scaleFor, valueBar } from './valueBar.js';

const componentRows: { key: 'verifier' | 'userGoal' | 'satisfaction' | 'efficiency' | 'rubric'; label: string; range: string }[] = [
  { key: 'verifier', label: 'verifier', range: '0..1: the verifier\'s score' },
  { key: 'userGoal', label: 'user goal', range: '0 or 1: the simulated user says their goal was met' },
  { key: 'satisfaction', label: 'satisfaction', range: '0..1: the user\'s 1–5 rating, rescaled' },
  { key: 'efficiency', label: 'efficiency', range: '0..1: 1 − agent turns / turn budget' },
  { key: 'rubric', label: 'rubric', range: '−1..1: mean polarity of the judge\'s tags' },
];

const signed = (x: number): string => `${x < 0 ? '−' : '+'}${Math.abs(x).toFixed(3)}`;

/**
 * The reward tab's breakdown: the total as the weighted sum it is, each term and each component drawn to scale
 * (negative values to the left of a zero line), and a sentence when the total lies outside [0, 1].
 */
export function rewardBreakdown(r: RolloutRecord, weights: RewardWeights | undefined, rubric: RolloutView['rubric'] = {}): TemplateResult {
  const c = r.rewards;
  const componentScale = scaleFor(componentRows.map((x) => c[x.key]), { lo: componentRows.some((x) => c[x.key] < 0) ? -1 : 0, hi: 1 });
  const breakdown = weights ? rewardTerms(c, weights) : undefined;
  const termScale = breakdown ? scaleFor([...breakdown.terms.map((t) => t.contribution), c.total]) : undefined;
  const why = breakdown ? outOfRangeReason(c, breakdown.terms) : undefined;
  return html`<h2>Reward <b id="reward-total">${c.total.toFixed(3)}</b> <span class="dim">${r.success ? 'success (the verifier passed and the user\'s goal was met)' : 'not a success'}</span></h2>
    ${why ? html`<p class="note" id="reward-range"><span class="codicon codicon-info"></span> ${why}</p>` : nothing}
    ${r.unfinished ? html`<p class="note" id="reward-unfinished"><span class="codicon codicon-info"></span> Not finished: ${r.unfinished.note}.</p>` : nothing}
    ${breakdown && termScale ? html`<h3>What adds up to it</h3>
      <table class="bars" id="reward-terms">
        ${breakdown.terms.map((t) => html`<tr class=${t.weight === 0 ? 'dim' : ''}><td>${t.name}</td><td class="formula">${t.formula}</td><td class="bar">${valueBar(t.contribution, termScale, t.name)}</td><td class="num">${signed(t.contribution)}</td></tr>`)}
        <tr class="sum"><td>total</td><td class="formula">${breakdown.addsUp ? (breakdown.rule === 'gated' ? 'sum of the terms (each is gated by the outcome: a failed rollout earns 0 whatever the weights)' : 'sum of the terms (recorded before shaping was gated by the outcome)') : html`<span class="bad">the terms add up to ${breakdown.sum.toFixed(3)}, not the stored total</span>`}</td><td class="bar">${valueBar(c.total, termScale, 'total')}</td><td class="num">${c.total.toFixed(3)}</td></tr>
      </table>` : nothing}
    <h3>Components</h3>
    <table class="bars" id="reward-components">${componentRows.map((x) => html`<tr><td>${x.label}</td><td class="bar">${valueBar(c[x.key], componentScale, x.label)}</td><td class="num">${c[x.key].toFixed(2)}</td><td class="dim">${x.range}</td></tr>`)}</table>
    ${r.tags.length ? html`<h3>Rubric tags</h3><ul class="tags">${r.tags.map((t) => {
      const info = Object.hasOwn(rubric, t) ? rubric[t] : undefined;
      return html`<li><span class="tag ${info && info.polarity < 0 ? 'tag-bad' : ''}">${t}</span> <span class="dim">${info ? `${info.polarity > 0 ? '+1' : '−1'} · ${info.description}` : 'not in the rubric vocabulary (no effect)'}</span></li>`;
    })}</ul>` : nothing}`;
}
