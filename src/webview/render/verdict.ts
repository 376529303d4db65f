// "Is it working?" in one row: for each thing co-evolution should do, the last generation's stored figure and how
// it moved since the first. Numbers only come from the run directory; the arrows are differences of stored numbers.
import { html, nothing, type TemplateResult } from 'lit';
import type { DashboardView, GenerationFigures } from '../protocol.js';
import { pct, pp, userEffectText } from './figures.js';


function card(id: string, title: string, value: string, detail: TemplateResult | string, icon: string): TemplateResult {
  return html`<section class="verdict-card" id=${`verdict-${id}`} aria-label=${title}>
    <h3><span class="codicon codicon-${icon}"></span> ${title}</h3>
    <div class="verdict-value">${value}</div>
    <div class="dim">${detail}</div>
  </section>`;
}

function since(first: GenerationFigures, last: GenerationFigures, value: (m: GenerationFigures) => number): string {
  return first.index === last.index ? '' : ` (${pp(value(last) - value(first))} since generation ${first.index})`;
}

export function verdictStrip(v: DashboardView): TemplateResult {
  const gens = v.run.generations;
  const first = gens[0];
  const last = gens.at(-1);
  if (!first || !last) return html`<p class="dim" id="verdict-none">No generation has finished yet: the first figures appear when one does.</p>`;
  const band = `${pct(v.run.band.low)}–${pct(v.run.band.high)}`;
  const promotions = v.agentUpdates.filter((a) => a.promoted);
  const lastPromotion = promotions.at(-1);
  const test = last.heldOut?.test;
  const effect = last.userEffect?.meanVsParent;
  const archive = last.archiveBand;
  return html`<div class="verdict" id="verdict" role="region" aria-label="Is it working?">
    ${card('band', 'Tasks at the edge', pct(last.inBandShare),
      html`of the pairs played in generation ${last.index} had a success rate in the band ${band}${since(first, last, (m) => m.inBandShare)}; ${pct(last.difficulty.frontier)} frontier, ${pct(last.difficulty.tooEasy)} too easy, ${pct(last.difficulty.tooHard)} too hard${archive ? html`. Archive from pooled evidence: ${pct(archive.inBandShare)} in band (${pct(archive.expectedInBandShare)} expected on fresh plays)` : nothing}.`,
      'target')}
    ${test
      ? card('agent', 'Agent on its frozen test set', pct(test.score.success), html`95 % interval ${pct(test.score.ci[0])}–${pct(test.score.ci[1])} on ${test.pairs} pairs × ${test.playsPerPair} plays, agent ${test.score.agentId}${test.vsPrevious ? html`; vs ${test.vsPrevious.agentId}: ${pp(test.vsPrevious.difference)} (p = ${test.vsPrevious.pValue.toFixed(3)})` : nothing}.`, 'hubot')
      : card('agent', 'Agent promotions', `${promotions.length} of ${v.agentUpdates.length}`,
        lastPromotion?.heldOut
          ? html`candidates promoted; the last, in generation ${lastPromotion.generation}, had mean reward ${lastPromotion.heldOut.candidate.toFixed(3)} against ${lastPromotion.heldOut.incumbent.toFixed(3)} on the same held-out rollouts. This run has no frozen test set, so no measured gain.`
          : html`candidates promoted${v.agentUpdates.length === 0 ? ' (the agent does not evolve in this run)' : ''}.`,
        'hubot')}
    ${card('users', 'Users co-evolving', pct(last.users.evolvedShare ?? 0),
      effect ? html`of the users played are evolved; ${userEffectText(effect)}` : html`of the users played in generation ${last.index} are evolved ones${since(first, last, (m) => m.users.evolvedShare ?? 0)}.`,
      'account')}
    ${card('children', 'Children admitted', `${last.frontierYield.accepted}/${last.frontierYield.proposed}`,
      html`proposed children passed validation in generation ${last.index}${Object.keys(last.rejections).length ? html`; rejected: ${Object.entries(last.rejections).map(([why, n]) => `${n} ${why}`).join(', ')}` : nothing}${last.frontierYield.measured !== undefined ? html`; ${last.frontierYield.inBand} of ${last.frontierYield.measured} measured children landed in the band` : nothing}${last.frontierYield.aim ? html`; the children screened were aimed at ${pct(last.frontierYield.aim.predicted)} and screened at ${pct(last.frontierYield.aim.screened)} (95 % interval ${pct(last.frontierYield.aim.ci[0])}–${pct(last.frontierYield.aim.ci[1])})` : nothing}. ${(v.retirements ?? []).length} pairs retired so far.`,
      'type-hierarchy-sub')}
    ${card('health', 'Errors', String(gens.reduce((s, m) => s + m.errors, 0)),
      html`rollouts ended in an infrastructure error${noOutcomeText(gens)}, ${gens.reduce((s, m) => s + m.truncated, 0)} were cut by a budget; cost $${gens.reduce((s, m) => s + m.costUsd, 0).toFixed(2)}.`,
      'pulse')}
  </div>`;
}

/** ", 3 had no outcome (…)" when plays lost their verification or rating to the wall clock; nothing otherwise. */
export function noOutcomeText(gens: GenerationFigures[]): string {
  const n = gens.reduce((s, m) => s + (m.unfinished ?? 0), 0);
  return n > 0 ? `, ${n} had no outcome (their verification or rating was cut short)` : '';
}
