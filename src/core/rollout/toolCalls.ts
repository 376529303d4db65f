import { addUsage } from '../ports/model.js';
import type { ExecResult } from '../ports/sandbox.js';
import type { AgentEpisode, AgentToolCall, ToolResult, UserEpisode } from '../roles/ports.js';
import type { EnvironmentSpec } from '../spec/environment.js';
import { recordStep, timed, type Episode } from './episode.js';
import type { AtifStep } from './trajectory.js';

/** What an agent turn acts on besides the episode: the task, both parties' episodes and the agent phase's signal. */
export interface TurnContext {
  env: EnvironmentSpec;
  agent: AgentEpisode;
  user: UserEpisode;
  signal: AbortSignal;
}

/**
 * Runs one turn's tool calls in order and returns their results; a submit, or a reply in which the user stops,
 * ends the episode and the calls after it are not run.
 */
export async function runToolCalls(ep: Episode, ctx: TurnContext, calls: AgentToolCall[], agentStep: AtifStep): Promise<ToolResult[]> {
  const results: ToolResult[] = [];
  for (const call of calls) {
    if ('invalid' in call) {
      results.push({ callId: call.id, content: `error: ${call.invalid}` });
      agentStep.extra = { ...agentStep.extra, error: call.invalid };
      continue;
    }
    if (call.name === 'run_command') {
      results.push(await runCommand(ep, ctx, call));
    } else if (call.name === 'message_user') {
      results.push(await messageUser(ep, ctx, call));
      if (ep.end) break;
    } else if (call.name === 'submit') {
      results.push({ callId: call.id, content: 'submitted' });
      ep.end = { status: 'terminated', submitted: true };
      break;
    }
  }
  return results;
}

async function runCommand(ep: Episode, ctx: TurnContext, call: Extract<AgentToolCall, { name: 'run_command' }>): Promise<ToolResult> {
  const { env } = ctx;
  const r = await timed(ep, 'sandboxMs', () => ep.sandbox!.exec(call.command, {
    timeoutMs: env.sandbox.limits.commandTimeoutSec * 1000,
    maxOutputBytes: env.sandbox.limits.maxOutputBytes,
    cwd: env.sandbox.workdir,
    ...(env.sandbox.shell ? { shell: env.sandbox.shell } : {}),
    signal: ctx.signal,
  }));
  // A session asked for but not given (a backend without the channel) is recorded as what ran.
  if (env.sandbox.shell === 'session' && r.shell !== 'session') ep.ranStateless = true;
  return { callId: call.id, content: formatCommandOutput(r), command: { exitCode: r.exitCode, durationMs: r.durationMs, timedOut: r.timedOut, truncated: r.truncated, stderr: r.stderr } };
}

/** The user's reply is the call's result and also a user step (with `replyTo`); a reply that stops ends the episode. */
async function messageUser(ep: Episode, ctx: TurnContext, call: Extract<AgentToolCall, { name: 'message_user' }>): Promise<ToolResult> {
  const reply = await timed(ep, 'modelMs', () => ctx.user.reply(call.text, ctx.signal));
  ep.usage = addUsage(ep.usage, reply.usage);
  const result: ToolResult = { callId: call.id, content: reply.message };
  recordStep(ep, { source: 'user', message: reply.message, extra: { disclosedFacts: reply.disclosedFacts, replyTo: call.id } });
  if (reply.stop) ep.end = { status: 'terminated', submitted: false, stop: reply.stop };
  return result;
}

export function formatCommandOutput(r: ExecResult): string {
  const parts = [`exit code ${r.exitCode}${r.timedOut ? ' (timed out)' : ''}${r.truncated ? ' (output truncated)' : ''}`];
  if (r.stdout) parts.push(r.stdout.replace(/\n$/, ''));
  if (r.stderr) parts.push(`[stderr]\n${r.stderr.replace(/\n$/, '')}`);
  return parts.join('\n');
}

export function toAtifCall(call: AgentToolCall): NonNullable<AtifStep['tool_calls']>[number] {
  if ('invalid' in call) return { tool_call_id: call.id, function_name: call.name, arguments: { raw: call.rawArguments } };
  switch (call.name) {
    case 'run_command':
      return { tool_call_id: call.id, function_name: call.name, arguments: { command: call.command } };
    case 'message_user':
      return { tool_call_id: call.id, function_name: call.name, arguments: { text: call.text } };
    case 'submit':
      return { tool_call_id: call.id, function_name: call.name, arguments: { summary: call.summary } };
  }
}

/** A turn's results as the agent step's observation. */
export function toObservation(results: ToolResult[]): NonNullable<AtifStep['observation']> {
  return { results: results.map((r) => ({ source_call_id: r.callId, content: r.content, ...(r.command ? { command: r.command } : {}) })) };
}
