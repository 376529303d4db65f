import { agentTools } from '../core/roles/agentTools.js';
import type { AtifStep, RolloutRecord } from '../core/rollout/trajectory.js';
import { toolVersion } from '../core/version.js';
import type { RolloutMetadata } from './rolloutMetadata.js';

export const atifSchemaVersion = 'ATIF-v1.7';

export interface AtifSubagentRef {
  trajectory_id: string;
  session_id?: string;
}

export interface AtifExportStep {
  step_id: number;
  timestamp?: string;
  source: 'system' | 'user' | 'agent';
  message: string;
  reasoning_content?: string;
  model_name?: string;
  tool_calls?: { tool_call_id: string; function_name: string; arguments: Record<string, unknown>; extra?: Record<string, unknown> }[];
  observation?: { results: { source_call_id?: string; content?: string; subagent_trajectory_ref?: AtifSubagentRef[]; extra?: Record<string, unknown> }[] };
  metrics?: { prompt_tokens?: number; completion_tokens?: number; cached_tokens?: number; cost_usd?: number; prompt_token_ids?: number[]; completion_token_ids?: number[]; logprobs?: number[] };
  /** 0 on a step of a built-in (non-LLM) role: a deterministic dispatch, with no metrics. */
  llm_call_count?: number;
  extra?: Record<string, unknown>;
}

export interface AtifAgentInfo {
  name: string;
  version: string;
  model_name?: string;
  tool_definitions?: Record<string, unknown>[];
  extra?: Record<string, unknown>;
}

export interface AtifTrajectory {
  schema_version: typeof atifSchemaVersion;
  session_id?: string;
  trajectory_id: string;
  agent: AtifAgentInfo;
  steps: AtifExportStep[];
  notes?: string;
  final_metrics: { total_prompt_tokens: number; total_completion_tokens: number; total_cached_tokens: number; total_cost_usd: number; total_steps: number };
  subagent_trajectories?: AtifTrajectory[];
  extra?: { coevolve: CoevolveExtra } | Record<string, unknown>;
}

/** What a trajectory's `extra.coevolve` holds beside the metadata every export carries (the ending included). */
type CoevolveExtra = RolloutMetadata & { verifier?: unknown; user_rating?: unknown; error?: string };

/** The label convention of built-in roles ("built-in heuristic agent (not an LLM)"). */
const isBuiltin = (label: string): boolean => /\(not an LLM\)/.test(label);

/**
 * A rollout as an ATIF v1.7 trajectory. The agent's steps are the root trajectory; the simulated user, whom the
 * agent consults through `message_user`, is an embedded subagent (`subagent_trajectories`, resolved by
 * `trajectory_id` from each `message_user` observation). Steps are renumbered from 1, agent-only fields stay on agent
 * steps, per-command detail (exit code, duration) goes into each observation result's `extra`, and steps of
 * built-in roles carry `llm_call_count: 0` (a deterministic dispatch, so no token metrics).
 */
export function toAtifTrajectory(r: RolloutRecord, metadata: RolloutMetadata): AtifTrajectory {
  const agentBuiltin = isBuiltin(r.roles.agent);
  const userTrajectoryId = `${r.id}/user`;
  const userSteps = r.steps.filter((s) => s.source === 'user');
  const hasUser = userSteps.length > 0;
  const steps = r.steps.map((s, i) => toAtifStep(s, i + 1, agentBuiltin, hasUser ? userTrajectoryId : undefined, r.id));
  const models = [...new Set(r.steps.map((s) => s.model_name).filter((m): m is string => typeof m === 'string'))];
  const agent: AtifAgentInfo = {
    name: 'coevolve-agent',
    version: toolVersion,
    tool_definitions: agentTools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } })),
    extra: { agent_id: r.agentId, role: r.roles.agent, llm: !agentBuiltin },
  };
  if (models.length === 1) agent.model_name = models[0];
  const coevolve: CoevolveExtra = { ...metadata };
  if (r.verifier) coevolve.verifier = { exit_code: r.verifier.exitCode, reward: r.verifier.reward, detail: r.verifier.detail, timed_out: r.verifier.timedOut, duration_ms: r.verifier.durationMs };
  if (r.userRating) coevolve.user_rating = { goal_met: r.userRating.goalMet, satisfaction: r.userRating.satisfaction, reason: r.userRating.reason, stop_reason: r.userRating.stopReason };
  if (r.error) coevolve.error = r.error;
  const out: AtifTrajectory = {
    schema_version: atifSchemaVersion,
    session_id: r.id,
    trajectory_id: r.id,
    agent,
    steps,
    final_metrics: {
      total_prompt_tokens: r.usage.promptTokens,
      total_completion_tokens: r.usage.completionTokens,
      total_cached_tokens: r.usage.cachedTokens,
      total_cost_usd: r.usage.costUsd,
      total_steps: steps.length,
    },
    extra: { coevolve },
  };
  if (hasUser) out.subagent_trajectories = [userTrajectory(r, userTrajectoryId)];
  return out;
}

/**
 * The simulated user's side as its own trajectory: what the agent said to it (source "user", from the user's point
 * of view the incoming message) and its replies (source "agent": the user simulator is the actor here).
 */
function userTrajectory(r: RolloutRecord, trajectoryId: string): AtifTrajectory {
  const builtin = isBuiltin(r.roles.user);
  const steps: AtifExportStep[] = [];
  const push = (s: Omit<AtifExportStep, 'step_id'>): void => {
    steps.push({ step_id: steps.length + 1, ...s });
  };
  const callText = new Map<string, string>();
  for (const s of r.steps) {
    for (const c of s.tool_calls ?? []) if (c.function_name === 'message_user') callText.set(c.tool_call_id, String((c.arguments as { text?: unknown }).text ?? ''));
  }
  let first = true;
  for (const s of r.steps) {
    if (s.source === 'agent' && (s.tool_calls ?? []).length === 0 && s.message) {
      push({ source: 'user', message: s.message, ...(s.timestamp ? { timestamp: s.timestamp } : {}) });
    }
    if (s.source !== 'user') continue;
    const asked = s.extra?.replyTo ? callText.get(s.extra.replyTo) : undefined;
    if (asked !== undefined) push({ source: 'user', message: asked, ...(s.timestamp ? { timestamp: s.timestamp } : {}), extra: { tool_call_id: s.extra!.replyTo } });
    else if (first) push({ source: 'system', message: 'The conversation opens: the user states the request.' });
    first = false;
    const reply: Omit<AtifExportStep, 'step_id'> = { source: 'agent', message: s.message, ...(s.timestamp ? { timestamp: s.timestamp } : {}) };
    if (builtin) reply.llm_call_count = 0;
    const disclosed = s.extra?.disclosedFacts;
    if (disclosed && disclosed.length > 0) reply.extra = { disclosed_facts: disclosed };
    push(reply);
  }
  return {
    schema_version: atifSchemaVersion,
    session_id: r.id,
    trajectory_id: trajectoryId,
    agent: { name: 'coevolve-simulated-user', version: toolVersion, extra: { user_id: r.userId, role: r.roles.user, llm: !builtin } },
    steps,
    final_metrics: { total_prompt_tokens: 0, total_completion_tokens: 0, total_cached_tokens: 0, total_cost_usd: 0, total_steps: steps.length },
    notes: 'The simulated user consulted by the root agent through message_user; token usage is counted in the root trajectory.',
  };
}

function toAtifStep(s: AtifStep, stepId: number, agentBuiltin: boolean, userTrajectoryId: string | undefined, sessionId: string): AtifExportStep {
  const out: AtifExportStep = { step_id: stepId, source: s.source, message: s.message };
  if (s.timestamp) out.timestamp = s.timestamp;
  const extra: Record<string, unknown> = { ...(s.extra ?? {}) };
  if (s.source === 'agent') {
    if (s.reasoning_content) out.reasoning_content = s.reasoning_content;
    if (s.model_name) out.model_name = s.model_name;
    if (s.tool_calls && s.tool_calls.length > 0) {
      out.tool_calls = s.tool_calls.map((c) => ({ tool_call_id: c.tool_call_id, function_name: c.function_name, arguments: isPlainObject(c.arguments) ? c.arguments : { value: c.arguments } }));
    }
    if (agentBuiltin) out.llm_call_count = 0;
    else if (s.metrics) out.metrics = { prompt_tokens: s.metrics.prompt_tokens, completion_tokens: s.metrics.completion_tokens, cached_tokens: s.metrics.cached_tokens, cost_usd: s.metrics.cost_usd };
  } else if (s.tool_calls?.length || s.metrics) {
    // ATIF allows these on agent steps only; keep them rather than drop what was recorded.
    if (s.tool_calls?.length) extra.tool_calls = s.tool_calls;
    if (s.metrics) extra.metrics = s.metrics;
  }
  if (s.observation && s.observation.results.length > 0) {
    const calls = new Map((out.tool_calls ?? []).map((c) => [c.tool_call_id, c.function_name]));
    out.observation = {
      results: s.observation.results.map((o) => {
        // A result must reference a call of the same step; one that does not is kept without the reference.
        const result: NonNullable<AtifExportStep['observation']>['results'][number] = calls.has(o.source_call_id) ? { source_call_id: o.source_call_id, content: o.content } : { content: o.content };
        if (o.command) result.extra = { exit_code: o.command.exitCode, duration_ms: o.command.durationMs, timed_out: o.command.timedOut, truncated: o.command.truncated, stderr: o.command.stderr };
        if (userTrajectoryId && calls.get(o.source_call_id) === 'message_user') result.subagent_trajectory_ref = [{ trajectory_id: userTrajectoryId, session_id: sessionId }];
        return result;
      }),
    };
  }
  if (Object.keys(extra).length > 0) out.extra = extra;
  return out;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
