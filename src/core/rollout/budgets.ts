import type { Usage } from '../ports/model.js';
import type { RunConfig } from '../spec/run.js';

/** wall_clock: the run's budget for the whole rollout; agent_timeout: the environment's own limit on the agent's turns. */
export class BudgetExceeded extends Error {
  constructor(readonly budget: 'wall_clock' | 'agent_timeout') {
    super(`budget exceeded: ${budget}`);
  }
}

/** A time budget as a signal: it aborts with BudgetExceeded when the time is up, unless cleared first. */
export interface TimeBudget {
  signal: AbortSignal;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/**
 * The wall-clock budget and the caller's cancellation share one signal, so every sandbox and model call stops.
 */
export function wallClockBudget(budgets: RunConfig['budgets'], cancel: AbortSignal | undefined): TimeBudget {
  const wall = new AbortController();
  const timer = setTimeout(() => wall.abort(new BudgetExceeded('wall_clock')), budgets.wallClockSec * 1000);
  const signal = cancel ? AbortSignal.any([cancel, wall.signal]) : wall.signal;
  return { signal, timer };
}

/** The environment's agent timeout, when it sets one, as a signal that also carries the run's `signal`. */
export function agentPhaseBudget(limitSec: number | undefined, signal: AbortSignal): TimeBudget & { expired: () => boolean } {
  const agentPhase = new AbortController();
  const timer = limitSec !== undefined ? setTimeout(() => agentPhase.abort(new BudgetExceeded('agent_timeout')), limitSec * 1000) : undefined;
  const agentSignal = limitSec !== undefined ? AbortSignal.any([signal, agentPhase.signal]) : signal;
  return { signal: agentSignal, timer, expired: () => agentPhase.signal.aborted };
}

/** The turn or token budget spent before the agent's next turn, if either is (turns are checked first). */
export function spentBudget(agentTurns: number, usage: Usage, budgets: RunConfig['budgets']): 'turns' | 'tokens' | undefined {
  if (agentTurns >= budgets.turns) return 'turns';
  if (budgets.tokens > 0 && usage.promptTokens + usage.completionTokens >= budgets.tokens) return 'tokens';
  return undefined;
}
