import type { AtifStep, RolloutRecord } from '../core/rollout/trajectory.js';
import { toolVersion } from '../core/version.js';
import type { RolloutMetadata } from './rolloutMetadata.js';

export const atifSchemaVersion = 'ATIF-v1.4';

export interface AtifExportStep {
  step_id: number;
  timestamp?: string;
  source: 'system' | 'user' | 'agent';
  message: string;
  model_name?: string;
  tool_calls?: { tool_call_id: string; function_name: string; arguments: Record<string, unknown> }[];
  observation?: { results: { source_call_id?: string; content?: string }[] };
  metrics?: { prompt_tokens?: number; completion_tokens?: number; cached_tokens?: number; cost_usd?: number };
  extra?: Record<string, unknown>;
}

export interface AtifTrajectory {
  schema_version: typeof atifSchemaVersion;
  session_id: string;
  agent: { name: string; version: string; model_name?: string; extra?: Record<string, unknown> };
  steps: AtifExportStep[];
  notes?: string;
  final_metrics: { total_prompt_tokens: number; total_completion_tokens: number; total_cached_tokens: number; total_cost_usd: number; total_steps: number };
  extra: { coevolve: RolloutMetadata & { verifier?: unknown; user_rating?: unknown; truncation_reason?: string; error?: string } };
}

/**
 * A rollout as an ATIF v1.4 trajectory. Rollout steps already use ATIF names; this makes them strictly valid:
 * step ids renumbered from 1, agent-only fields kept on agent steps only, and our per-command detail (exit code,
 * duration) moved from the observation results (which allow no extra fields) into the step's `extra`.
 */
export function toAtifTrajectory(r: RolloutRecord, metadata: RolloutMetadata): AtifTrajectory {
  const steps = r.steps.map((s, i) => toAtifStep(s, i + 1));
  const models = [...new Set(r.steps.map((s) => s.model_name).filter((m): m is string => typeof m === 'string'))];
  const agent: AtifTrajectory['agent'] = { name: 'coevolve-agent', version: toolVersion, extra: { agent_id: r.agentId, role: r.roles.agent } };
  if (models.length === 1) agent.model_name = models[0];
  const coevolve: AtifTrajectory['extra']['coevolve'] = { ...metadata };
  if (r.verifier) coevolve.verifier = { exit_code: r.verifier.exitCode, reward: r.verifier.reward, detail: r.verifier.detail, timed_out: r.verifier.timedOut, duration_ms: r.verifier.durationMs };
  if (r.userRating) coevolve.user_rating = { goal_met: r.userRating.goalMet, satisfaction: r.userRating.satisfaction, reason: r.userRating.reason, stop_reason: r.userRating.stopReason };
  if (r.truncationReason) coevolve.truncation_reason = r.truncationReason;
  if (r.error) coevolve.error = r.error;
  return {
    schema_version: atifSchemaVersion,
    session_id: r.id,
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
}

function toAtifStep(s: AtifStep, stepId: number): AtifExportStep {
  const out: AtifExportStep = { step_id: stepId, source: s.source, message: s.message };
  if (s.timestamp) out.timestamp = s.timestamp;
  const extra: Record<string, unknown> = { ...(s.extra ?? {}) };
  if (s.source === 'agent') {
    if (s.model_name) out.model_name = s.model_name;
    if (s.tool_calls && s.tool_calls.length > 0) {
      out.tool_calls = s.tool_calls.map((c) => ({ tool_call_id: c.tool_call_id, function_name: c.function_name, arguments: isPlainObject(c.arguments) ? c.arguments : { value: c.arguments } }));
    }
    if (s.metrics) out.metrics = { prompt_tokens: s.metrics.prompt_tokens, completion_tokens: s.metrics.completion_tokens, cached_tokens: s.metrics.cached_tokens, cost_usd: s.metrics.cost_usd };
  } else if (s.tool_calls?.length || s.metrics) {
    // ATIF allows these on agent steps only; keep them rather than drop what was recorded.
    if (s.tool_calls?.length) extra.tool_calls = s.tool_calls;
    if (s.metrics) extra.metrics = s.metrics;
  }
  if (s.observation && s.observation.results.length > 0) {
    const callIds = new Set((out.tool_calls ?? []).map((c) => c.tool_call_id));
    const commands: Record<string, unknown>[] = [];
    out.observation = {
      results: s.observation.results.map((o) => {
        if (o.command) commands.push({ source_call_id: o.source_call_id, exit_code: o.command.exitCode, duration_ms: o.command.durationMs, timed_out: o.command.timedOut, truncated: o.command.truncated, stderr: o.command.stderr });
        // A result must reference a call of the same step; one that does not is kept without the reference.
        return callIds.has(o.source_call_id) ? { source_call_id: o.source_call_id, content: o.content } : { content: o.content };
      }),
    };
    if (commands.length > 0) extra.commands = commands;
  }
  if (Object.keys(extra).length > 0) out.extra = extra;
  return out;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
