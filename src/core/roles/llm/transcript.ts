import type { AtifStep, VerifierOutcome } from '../../rollout/trajectory.js';

/**
 * A trajectory as plain text for a model to read (judge, rater, evolver): who said what, which commands ran and
 * what came back, each step numbered so a judgement can cite it. Long outputs are cut in the middle.
 */
export function renderTranscript(steps: readonly AtifStep[], options: { maxOutputChars?: number; maxChars?: number } = {}): string {
  const maxOutput = options.maxOutputChars ?? 600;
  const lines: string[] = [];
  for (const step of steps) {
    const who = step.source === 'agent' ? 'AGENT' : step.source === 'user' ? 'USER' : 'SYSTEM';
    if (step.message) lines.push(`[${step.step_id}] ${who}: ${step.message}`);
    for (const call of step.tool_calls ?? []) {
      lines.push(`[${step.step_id}] ${who} calls ${call.function_name} ${JSON.stringify(call.arguments)}`);
    }
    for (const result of step.observation?.results ?? []) {
      const exit = result.command ? ` (exit ${result.command.exitCode}${result.command.timedOut ? ', timed out' : ''})` : '';
      lines.push(`[${step.step_id}] RESULT${exit}: ${cutMiddle(result.content, maxOutput)}`);
    }
    if (step.extra?.error) lines.push(`[${step.step_id}] ERROR: ${step.extra.error}`);
  }
  const text = lines.join('\n');
  return options.maxChars ? cutMiddle(text, options.maxChars) : text;
}

export function describeOutcome(submitted: boolean, verifier: VerifierOutcome | undefined): string {
  if (!submitted) return 'The agent never submitted its work.';
  if (!verifier) return 'The agent submitted; the work was not checked.';
  const verdict = verifier.reward >= 1 ? 'passed' : verifier.reward > 0 ? `partly passed (reward ${verifier.reward.toFixed(2)})` : 'failed';
  return `The agent submitted, and the automatic check ${verdict}.`;
}

export function cutMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor((max - 20) / 2);
  return `${text.slice(0, half)}\n…[${text.length - 2 * half} chars cut]…\n${text.slice(-half)}`;
}
