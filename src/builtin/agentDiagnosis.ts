import type { AtifStep } from '../core/rollout/trajectory.js';
import type { AgentGenes } from '../core/spec/agent.js';
import { agentNarration } from './agent/heuristicAgent.js';

/**
 * Why a failed play of the built-in agent failed, read from its own trace (what it said and what its commands
 * returned), never from the task's hidden files:
 * - `assumed`: it submitted with facts it was never told (its summary says what it assumed);
 * - `unchecked`: its last action before submitting was a solution run it never checked;
 * - `outOfRetries`: its last check did not pass and it had no retry left (a slip it could not repair).
 * A play whose check passed and still failed was misled (an assumption or a decoy): no retry would have helped.
 */
export type FailureCause = 'assumed' | 'unchecked' | 'outOfRetries';

export function diagnoseFailure(steps: AtifStep[]): FailureCause[] {
  const agentSteps = steps.filter((s) => s.source === 'agent');
  const causes: FailureCause[] = [];
  const submit = agentSteps.flatMap((s) => s.tool_calls ?? []).find((c) => c.function_name === 'submit');
  const summary = String((submit?.arguments as { summary?: unknown } | undefined)?.summary ?? '');
  if (summary.includes(agentNarration.assumed)) causes.push('assumed');
  const acts = agentSteps.filter((s) => s.message === agentNarration.solve || s.message === agentNarration.retry || s.message === agentNarration.check);
  const last = acts[acts.length - 1];
  if (last && last.message !== agentNarration.check) causes.push('unchecked');
  if (last && last.message === agentNarration.check && !summary.includes(agentNarration.checked)) causes.push('outOfRetries');
  return causes;
}

/** The gene steps that address a cause (direction of each step; idiom: any other idiom). */
export const remedies: Record<FailureCause, { gene: keyof AgentGenes; direction: 'up' | 'down' | 'other' }[]> = {
  assumed: [{ gene: 'askFirst', direction: 'up' }, { gene: 'questionBudget', direction: 'up' }],
  unchecked: [{ gene: 'verify', direction: 'up' }],
  outOfRetries: [{ gene: 'persistence', direction: 'up' }, { gene: 'idiom', direction: 'other' }],
};
