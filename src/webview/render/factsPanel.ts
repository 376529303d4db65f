import { html, nothing, type TemplateResult } from 'lit';
import type { RolloutRecord } from '../../core/rollout/trajectory.js';
import type { HiddenFactView } from '../protocol.js';

/**
 * The user's side of a rollout: their rating and reason, and every hidden fact against what was disclosed. A goal
 * missed because a required fact was never told is the usual cause of a failure the transcript does not explain.
 */
export function factsPanel(r: RolloutRecord, facts: HiddenFactView[] | undefined, goToStep: (step: number) => void): TemplateResult {
  const list = facts ?? [];
  const missing = list.filter((f) => f.required && f.disclosedAtStep === undefined);
  return html`<section class="facts-panel" id="facts">
    ${r.userRating
      ? html`<h2>User rating</h2>
        <p>goal met: <b class=${r.userRating.goalMet ? 'ok' : 'bad'} id="goal-met">${r.userRating.goalMet ? 'yes' : 'no'}</b> · satisfaction ${r.userRating.satisfaction}/5 · stopped: ${r.userRating.stopReason.replace(/_/g, ' ')}</p>
        <blockquote>${r.userRating.reason}</blockquote>`
      : html`<p class="dim">The user did not rate this rollout${r.status === 'error' ? ' (it ended in an infrastructure error)' : ''}.</p>`}
    <h2>Hidden facts <span class="dim">what only the user knew, and whether the agent learned it</span></h2>
    ${list.length === 0
      ? html`<p class="dim">This pair has no hidden facts: everything the agent needs is in the instruction.</p>`
      : html`${missing.length ? html`<p class="bad" id="facts-missing"><span class="codicon codicon-warning"></span> ${missing.length} required fact${missing.length > 1 ? 's were' : ' was'} never disclosed: ${missing.map((f) => f.id).join(', ')}.</p>` : html`<p class="ok" id="facts-missing"><span class="codicon codicon-check"></span> Every required fact was disclosed.</p>`}
        <table class="facts-table" id="facts-table">
          <thead><tr><th>fact</th><th>the user would say</th><th>needed</th><th>disclosed</th></tr></thead>
          <tbody>${list.map((f) => html`<tr class=${f.disclosedAtStep === undefined ? (f.required ? 'fact-missing' : 'fact-untold') : 'fact-told'}>
            <td><code>${f.id}</code>${f.source === 'user' ? html` <span class="dim">(user's own)</span>` : nothing}${f.heldBack ? html` <span class="held-back" title="An operator took this out of the instruction: the user holds it back until asked">held back from the instruction</span>` : nothing}</td>
            <td>${f.text}</td>
            <td>${f.required ? 'required' : 'optional'}</td>
            <td>${f.disclosedAtStep !== undefined
              ? html`<button class="link" @click=${() => goToStep(f.disclosedAtStep as number)} title="Show the step">step ${f.disclosedAtStep}</button>`
              : html`<span class=${f.required ? 'bad' : 'dim'}>never</span>`}</td>
          </tr>`)}</tbody>
        </table>`}
  </section>`;
}
