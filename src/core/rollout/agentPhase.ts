import { addUsage, isContextWindowExceeded } from '../ports/model.js';
import type { AgentEpisode, AgentTurn, ToolResult, UserEpisode, UserTurn } from '../roles/ports.js';
import type { EnvironmentSpec } from '../spec/environment.js';
import type { RunConfig } from '../spec/run.js';
import { agentPhaseBudget, spentBudget } from './budgets.js';
import { recordStep, timed, type Episode } from './episode.js';
import { isRetryable } from './failure.js';
import { runToolCalls, toAtifCall, toObservation, type TurnContext } from './toolCalls.js';
import type { AtifStep } from './trajectory.js';

/**
 * The agent's turns after the user's opening, until it submits, the user stops, or a budget (turns, tokens, the
 * environment's agent timeout) runs out; the episode's `end` says which.
 */
export async function playAgentPhase(ep: Episode, env: EnvironmentSpec, budgets: RunConfig['budgets'], parties: { agent: AgentEpisode; user: UserEpisode }, opening: UserTurn): Promise<void> {
  if (opening.stop) ep.end = { status: 'terminated', submitted: false, stop: opening.stop };
  // The environment's own agent timeout (Harbor's [agent] timeout_sec) ends the agent's phase only: the verifier
  // still judges what it left, as Harbor does. The run's wall clock still bounds the whole rollout. The two are
  // recorded apart (agent_timeout, wall_clock): one is the task's limit, the other the run's budget.
  const agentBudget = agentPhaseBudget(env.sandbox.limits.agentTimeoutSec, ep.signal);
  try {
    await playAgentTurns(ep, budgets, { env, ...parties, signal: agentBudget.signal }, opening.message);
  } catch (err) {
    if (!agentBudget.expired() || ep.signal.aborted || isRetryable(err)) throw err;
    ep.end = { status: 'truncated', reason: 'agent_timeout' };
  } finally {
    clearTimeout(agentBudget.timer);
  }
}

async function playAgentTurns(ep: Episode, budgets: RunConfig['budgets'], ctx: TurnContext, openingMessage: string): Promise<void> {
  let results: ToolResult[] = [];
  let userMessage: string | undefined = openingMessage;
  while (!ep.end) {
    const spent = spentBudget(ep.agentTurns, ep.usage, budgets);
    if (spent) {
      ep.end = { status: 'truncated', reason: spent };
      break;
    }
    const turn = await nextTurn(ep, ctx, results, userMessage);
    if (!turn) {
      // The conversation no longer fits the model's context window under the agent's history policy.
      ep.end = { status: 'truncated', reason: 'context' };
      break;
    }
    userMessage = undefined;
    ep.agentTurns++;
    ep.usage = addUsage(ep.usage, turn.usage);
    const agentStep = recordAgentTurn(ep, turn);
    if (turn.calls.length === 0) {
      userMessage = await answerMessage(ep, ctx, turn, agentStep);
      results = [];
      continue;
    }
    results = await runToolCalls(ep, ctx, turn.calls, agentStep);
    agentStep.observation = toObservation(results);
  }
}

/** The agent's next turn, or undefined when the conversation no longer fits its model's context window. */
function nextTurn(ep: Episode, ctx: TurnContext, results: ToolResult[], userMessage: string | undefined): Promise<AgentTurn | undefined> {
  return timed(ep, 'modelMs', () => ctx.agent.next({ results, ...(userMessage !== undefined ? { userMessage } : {}), signal: ctx.signal })).catch((err: unknown) => {
    if (isContextWindowExceeded(err)) return undefined;
    throw err;
  });
}

function recordAgentTurn(ep: Episode, turn: AgentTurn): AtifStep {
  const agentStep = recordStep(ep, {
    source: 'agent',
    message: turn.message ?? '',
    ...(turn.reasoning ? { reasoning_content: turn.reasoning } : {}),
    ...(turn.modelName ? { model_name: turn.modelName } : {}),
    tool_calls: turn.calls.map(toAtifCall),
    metrics: { prompt_tokens: turn.usage.promptTokens, completion_tokens: turn.usage.completionTokens, cached_tokens: turn.usage.cachedTokens, cost_usd: turn.usage.costUsd },
    ...(turn.promptNotes ? { extra: { context: turn.promptNotes } } : {}),
  });
  if (turn.tokens) ep.tokenTurns.push({ step: agentStep.step_id, ...turn.tokens });
  return agentStep;
}

/**
 * A turn without tool calls is a message to the user (models often answer in plain text): returns the user's reply,
 * the agent's next input. A turn with neither is marked on its step and gets no reply.
 */
async function answerMessage(ep: Episode, ctx: TurnContext, turn: AgentTurn, agentStep: AtifStep): Promise<string | undefined> {
  if (!turn.message) {
    agentStep.extra = { ...agentStep.extra, error: 'empty turn: no message and no tool call' };
    return undefined;
  }
  const reply = await timed(ep, 'modelMs', () => ctx.user.reply(turn.message ?? '', ctx.signal));
  ep.usage = addUsage(ep.usage, reply.usage);
  recordStep(ep, { source: 'user', message: reply.message, extra: { disclosedFacts: reply.disclosedFacts } });
  if (reply.stop) ep.end = { status: 'terminated', submitted: false, stop: reply.stop };
  return reply.message;
}
