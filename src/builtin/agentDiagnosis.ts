import type { AtifStep } from '../core/rollout/trajectory.js';
import type { AgentGenes } from '../core/spec/agent.js';
import { agentNarration } from './agent/heuristicAgent.js';
import { findFamily } from './families/registry.js';

/**
 * Why a failed play of the built-in agent failed, read from its own trace (what it said and what its commands
 * returned), never from the task's hidden files:
 * - `assumed`: it submitted with facts it was never told (its summary says what it assumed);
 * - `unchecked`: its last action before submitting was a solution run it never checked;
 * - `outOfRetries`: its last check did not pass and it had no retry left (a slip it could not repair);
 * - `unexplored`: its listing showed several candidate inputs and it worked on one it never looked at (a decoy it did
 *   not look at ends up in its input); read with the family's playbook (public: how the agent lists and looks).
 * A play whose check passed and still failed was misled (an assumption or a decoy): no retry would have helped.
 */
export type FailureCause = 'assumed' | 'unchecked' | 'outOfRetries' | 'unexplored';

export function diagnoseFailure(steps: AtifStep[], family?: string): FailureCause[] {
  const agentSteps = steps.filter((s) => s.source === 'agent');
  const causes: FailureCause[] = [];
  const submit = agentSteps.flatMap((s) => s.tool_calls ?? []).find((c) => c.function_name === 'submit');
  const summary = String((submit?.arguments as { summary?: unknown } | undefined)?.summary ?? '');
  if (summary.includes(agentNarration.assumed)) causes.push('assumed');
  const acts = agentSteps.filter((s) => s.message === agentNarration.solve || s.message === agentNarration.retry || s.message === agentNarration.check);
  const last = acts[acts.length - 1];
  if (last && last.message !== agentNarration.check) causes.push('unchecked');
  if (last && last.message === agentNarration.check && !summary.includes(agentNarration.checked)) causes.push('outOfRetries');
  if (family !== undefined && unexplored(agentSteps, family)) causes.push('unexplored');
  return causes;
}

/** Whether the survey listed more than one candidate input and some candidate was never looked at. */
function unexplored(agentSteps: AtifStep[], family: string): boolean {
  const pb = findFamily(family)?.playbook;
  if (!pb) return false;
  const commandOf = (s: AtifStep): string | undefined => {
    const call = s.tool_calls?.[0];
    const command = call?.function_name === 'run_command' ? (call.arguments as { command?: unknown }).command : undefined;
    return typeof command === 'string' ? command : undefined;
  };
  const survey = agentSteps.find((s) => commandOf(s) === pb.survey);
  const listing = survey?.observation?.results[0]?.content;
  if (listing === undefined) return false;
  const body = listing.startsWith('exit code') ? listing.slice(listing.indexOf('\n') + 1) : listing;
  const candidates = pb.candidates(body.split('\n[stderr]\n')[0] ?? '');
  if (candidates.length < 2) return false;
  const commands = new Set(agentSteps.map(commandOf));
  return candidates.some((c) => !commands.has(pb.inspect(c)));
}

/** The gene steps that address a cause (direction of each step; idiom: any other idiom). */
export const remedies: Record<FailureCause, { gene: keyof AgentGenes; direction: 'up' | 'down' | 'other' }[]> = {
  assumed: [{ gene: 'askFirst', direction: 'up' }, { gene: 'questionBudget', direction: 'up' }],
  unchecked: [{ gene: 'verify', direction: 'up' }],
  outOfRetries: [{ gene: 'persistence', direction: 'up' }, { gene: 'idiom', direction: 'other' }],
  unexplored: [{ gene: 'explore', direction: 'up' }],
};
