import { html, nothing, type TemplateResult } from 'lit';
import type { AtifObservationResult, AtifStep, AtifToolCall } from '../../core/rollout/trajectory.js';
import { highlight } from './highlight.js';

const who: Record<AtifStep['source'], { label: string; icon: string }> = {
  user: { label: 'User', icon: 'account' },
  agent: { label: 'Agent', icon: 'hubot' },
  system: { label: 'System', icon: 'gear' },
};

/** True when a step records a failure: a tool-call parse error, a budget note, or a command that exited non-zero. */
export function isErrorStep(step: AtifStep): boolean {
  return Boolean(step.extra?.error) || (step.observation?.results ?? []).some((r) => (r.command?.exitCode ?? 0) !== 0 || r.command?.timedOut);
}

function commandOf(call: AtifToolCall): string {
  const c = call.arguments['command'];
  return typeof c === 'string' ? c : JSON.stringify(call.arguments);
}

/**
 * A command's output as the terminal block shows it: without the "exit code N" line the agent was shown first (the
 * engine's formatCommandOutput header), which the block's foot already draws as its "exit N" badge. Anything else
 * stays as the agent saw it.
 */
export function shownOutput(content: string, cmd: { exitCode: number } | undefined): string {
  if (!cmd) return content;
  const header = /^exit code (-?\d+)(?: \(timed out\))?(?: \(output truncated\))?(?:\n|$)/.exec(content);
  return header && Number(header[1]) === cmd.exitCode ? content.slice(header[0].length) : content;
}

function terminal(call: AtifToolCall, result: AtifObservationResult | undefined, q: string): TemplateResult {
  const cmd = result?.command;
  const failed = cmd ? cmd.exitCode !== 0 || cmd.timedOut : false;
  return html`<div class="terminal ${failed ? 'failed' : ''}">
    <div class="term-cmd"><span class="prompt">$</span> ${highlight(commandOf(call), q)}</div>
    ${result ? (shownOutput(result.content, cmd) ? html`<pre class="term-out">${highlight(shownOutput(result.content, cmd), q)}</pre>` : nothing) : html`<div class="term-pending">running…</div>`}
    ${cmd?.stderr && !result?.content.includes(cmd.stderr.trim()) ? html`<pre class="term-err">${highlight(cmd.stderr, q)}</pre>` : nothing}
    ${cmd
      ? html`<div class="term-foot">
          <span class="exit ${failed ? 'bad' : 'ok'}">exit ${cmd.exitCode}</span>
          <span>${cmd.durationMs} ms</span>
          ${cmd.truncated ? html`<span class="mark" title="The middle of the output was cut to the environment's maxOutputBytes"><span class="codicon codicon-fold"></span> output truncated</span>` : nothing}
          ${cmd.timedOut ? html`<span class="mark bad"><span class="codicon codicon-watch"></span> timed out</span>` : nothing}
        </div>`
      : nothing}
  </div>`;
}

function toolCall(call: AtifToolCall, result: AtifObservationResult | undefined, q: string): TemplateResult {
  if (call.function_name === 'run_command' || result?.command) return terminal(call, result, q);
  if (call.function_name === 'message_user') {
    const text = typeof call.arguments['text'] === 'string' ? (call.arguments['text'] as string) : JSON.stringify(call.arguments);
    return html`<div class="call ask"><span class="codicon codicon-comment-discussion"></span> asks the user: ${highlight(text, q)}</div>`;
  }
  if (call.function_name === 'submit') {
    // The agent's own account of what it did (and why it stopped) is the call's summary; show it, not just "submitted".
    const summary = typeof call.arguments['summary'] === 'string' ? (call.arguments['summary'] as string) : '';
    return html`<div class="call submit"><span class="codicon codicon-check"></span> submitted${summary ? html`: <span class="submit-summary">${highlight(summary, q)}</span>` : nothing}${result && result.content !== 'submitted' && result.content !== summary ? html`<pre class="term-out">${highlight(result.content, q)}</pre>` : nothing}</div>`;
  }
  return html`<div class="call other">
    <div><span class="codicon codicon-symbol-method"></span> ${call.function_name}(${highlight(JSON.stringify(call.arguments), q)})</div>
    ${result ? html`<pre class="term-out">${highlight(result.content, q)}</pre>` : nothing}
  </div>`;
}

/** A reasoning model's thinking, collapsed: recorded for inspection, never part of what the user was told. */
function reasoningView(text: string, q: string): TemplateResult {
  return html`<details class="reasoning">
    <summary><span class="codicon codicon-lightbulb"></span> reasoning (${text.length} chars)</summary>
    <pre class="reasoning-text">${highlight(text, q)}</pre>
  </details>`;
}

export interface StepFlags {
  current: boolean;
  future: boolean;
  match: boolean;
}

export function stepView(step: AtifStep, flags: StepFlags, q: string, t0: number): TemplateResult {
  const w = who[step.source];
  const results = new Map((step.observation?.results ?? []).map((r) => [r.source_call_id, r]));
  const offset = Math.max(0, (new Date(step.timestamp).getTime() - t0) / 1000);
  const classes = ['step', step.source, flags.current ? 'current' : '', flags.future ? 'future' : '', flags.match ? 'match' : '', isErrorStep(step) ? 'has-error' : ''].join(' ');
  return html`<div class=${classes} data-step=${step.step_id} id=${`step-${step.step_id}`}>
    <div class="step-head">
      <span class="codicon codicon-${w.icon}"></span>
      <span class="who">${w.label}</span>
      ${step.extra?.hint ? html`<span class="tag">hint</span>` : nothing}
      ${(step.extra?.disclosedFacts?.length ?? 0) > 0 ? html`<span class="tag" title="facts disclosed">discloses ${step.extra?.disclosedFacts?.join(', ')}</span>` : nothing}
      <span class="spacer"></span>
      ${step.metrics ? html`<span class="dim">${step.metrics.prompt_tokens + step.metrics.completion_tokens} tok</span>` : nothing}
      <span class="dim">+${offset.toFixed(1)}s</span>
      <span class="step-no">#${step.step_id}</span>
    </div>
    ${step.reasoning_content ? reasoningView(step.reasoning_content, q) : nothing}
    ${step.message ? html`<div class="message">${highlight(step.message, q)}</div>` : nothing}
    ${(step.tool_calls ?? []).map((c) => toolCall(c, results.get(c.tool_call_id), q))}
    ${step.extra?.error ? html`<div class="step-error"><span class="codicon codicon-error"></span> ${highlight(step.extra.error, q)}</div>` : nothing}
  </div>`;
}
