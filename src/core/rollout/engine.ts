import { CancelledError, type Cancellation } from '../ports/cancellation.js';
import type { Clock } from '../ports/clock.js';
import { addUsage, isContextWindowExceeded, zeroUsage, type Usage } from '../ports/model.js';
import { rolloutRng } from '../ports/rng.js';
import type { CollectedLogs, ExecResult, Sandbox, SandboxBackend, SandboxRequest } from '../ports/sandbox.js';
import { agentTools } from '../roles/agentTools.js';
import { oracleView } from '../roles/oracleView.js';
import type { AgentToolCall, AgentTurn, Roles, ToolResult, UserTurn } from '../roles/ports.js';
import type { AgentConfig } from '../spec/agent.js';
import type { EnvironmentSpec } from '../spec/environment.js';
import type { RunConfig } from '../spec/run.js';
import type { UserProfile } from '../spec/user.js';
import { computeRewards, isSuccess } from './rewards.js';
import { roleModels } from './roleModels.js';
import type { TokenTurn } from './tokenSidecar.js';
import type { AtifStep, ErrorKind, RolloutRecord, RolloutStatus, UserRating, VerificationRecord, VerifierOutcome } from './trajectory.js';
import { verificationRecord, verify } from './verification.js';

export interface RolloutPlan {
  runId: string;
  runSeed: number;
  rolloutId: string;
  generation: number;
  pairId: string;
  trial: number;
  hint: boolean;
  env: EnvironmentSpec;
  user: UserProfile;
  agent: AgentConfig;
}

export interface RolloutDeps {
  backend: SandboxBackend;
  roles: Pick<Roles, 'agent' | 'user' | 'judge'>;
  budgets: RunConfig['budgets'];
  rewardWeights: RunConfig['reward'];
  clock: Clock;
  /** Labels for everything the sandbox creates, so the reaper can find leftovers. */
  labels?: Record<string, string>;
  /** Aborting stops the rollout; a cancelled rollout throws CancelledError and is not recorded (it is replayed on resume). */
  signal?: Cancellation;
}

type EndReason =
  | { status: 'terminated'; submitted: boolean; stop?: UserTurn['stop'] }
  | { status: 'truncated'; reason: NonNullable<RolloutRecord['truncationReason']> };

/**
 * Plays one episode: sandbox up → the user opens → agent turns (commands, messages to the user) under budgets →
 * submit → verifier (its files copied in only now) → the user's rating → judge tags → rewards. Any failure inside
 * is recorded in the trajectory with status "error"; it never throws, except on cancellation.
 */
export async function playRollout(plan: RolloutPlan, deps: RolloutDeps): Promise<RolloutRecord> {
  const { env } = plan;
  const { clock } = deps;
  const rng = rolloutRng(plan.runSeed, plan.rolloutId);
  const startedMs = clock.now();
  const startedAt = clock.isoNow();
  const steps: AtifStep[] = [];
  const timing = { sandboxMs: 0, modelMs: 0 };
  let usage: Usage = zeroUsage();
  /** A session shell was asked for and at least one command ran stateless (no channel): the record says so. */
  let ranStateless = false;
  let sandbox: Sandbox | undefined;
  let verifier: VerifierOutcome | undefined;
  let rating: UserRating | undefined;
  let tags: string[] = [];
  let end: EndReason | undefined;
  let error: string | undefined;
  let errorKind: ErrorKind | undefined;
  let fault: string | undefined;
  let verification: VerificationRecord | undefined;
  let logs: CollectedLogs | undefined;
  let agentTurns = 0;
  // Which kind of call is under way, so a failure is classed by where it came from (outcome classes).
  let phase: 'start' | 'sandbox' | 'model' = 'start';
  let sandboxUp = false;
  const tokenTurns: TokenTurn[] = [];

  // The wall-clock budget and the caller's cancellation share one signal, so every sandbox and model call stops.
  const wall = new AbortController();
  const wallTimer = setTimeout(() => wall.abort(new BudgetExceeded('wall_clock')), deps.budgets.wallClockSec * 1000);
  const signal = deps.signal ? AbortSignal.any([deps.signal, wall.signal]) : wall.signal;

  const step = (s: Omit<AtifStep, 'step_id' | 'timestamp'>): AtifStep => {
    const full: AtifStep = { step_id: steps.length + 1, timestamp: clock.isoNow(), ...s };
    steps.push(full);
    return full;
  };
  const timed = async <T>(bucket: 'sandboxMs' | 'modelMs', work: () => Promise<T>): Promise<T> => {
    phase = bucket === 'modelMs' ? 'model' : sandboxUp ? 'sandbox' : 'start';
    const t0 = clock.now();
    try {
      return await work();
    } finally {
      timing[bucket] += clock.now() - t0;
    }
  };

  try {
    const request = sandboxRequest(env, { ...deps.labels, 'coevolve.rollout': plan.rolloutId });
    sandbox = await timed('sandboxMs', () => deps.backend.start(request, { signal }));
    sandboxUp = true;
    const userEpisode = deps.roles.user.begin({ env, profile: plan.user, rng: rng.fork('user') });
    const opening = await timed('modelMs', () => userEpisode.open(signal));
    usage = addUsage(usage, opening.usage);
    step({ source: 'user', message: opening.message, extra: { disclosedFacts: opening.disclosedFacts } });

    const agentEpisode = deps.roles.agent.begin({
      task: {
        instruction: env.instruction, family: env.family, workdir: env.sandbox.workdir, tools: agentTools,
        ...(plan.hint && env.hint ? { hint: env.hint } : {}),
        // Only an agent that says it knows the oracle gets it, and then without the values the user holds back.
        ...(deps.roles.agent.knowsOracle ? { oracle: oracleView(env) } : {}),
      },
      config: plan.agent,
      rng: rng.fork('agent'),
    });
    if (plan.hint && env.hint) step({ source: 'system', message: `HINT: ${env.hint}`, extra: { hint: true } });

    let results: ToolResult[] = [];
    let userMessage: string | undefined = opening.message;
    if (opening.stop) end = { status: 'terminated', submitted: false, stop: opening.stop };
    // The environment's own agent timeout (Harbor's [agent] timeout_sec) ends the agent's phase only: the verifier
    // still judges what it left, as Harbor does. The run's wall clock still bounds the whole rollout.
    const agentLimitSec = env.sandbox.limits.agentTimeoutSec;
    const agentPhase = new AbortController();
    const agentTimer = agentLimitSec !== undefined ? setTimeout(() => agentPhase.abort(new BudgetExceeded('wall_clock')), agentLimitSec * 1000) : undefined;
    const agentSignal = agentLimitSec !== undefined ? AbortSignal.any([signal, agentPhase.signal]) : signal;
    try {
      while (!end) {
        if (agentTurns >= deps.budgets.turns) {
          end = { status: 'truncated', reason: 'turns' };
          break;
        }
        if (deps.budgets.tokens > 0 && usage.promptTokens + usage.completionTokens >= deps.budgets.tokens) {
          end = { status: 'truncated', reason: 'tokens' };
          break;
        }
        const turn: AgentTurn | undefined = await timed('modelMs', () => agentEpisode.next({ results, ...(userMessage !== undefined ? { userMessage } : {}), signal: agentSignal })).catch((err: unknown) => {
          if (isContextWindowExceeded(err)) return undefined;
          throw err;
        });
        if (!turn) {
          // The conversation no longer fits the model's context window under the agent's history policy.
          end = { status: 'truncated', reason: 'context' };
          break;
        }
        userMessage = undefined;
        agentTurns++;
        usage = addUsage(usage, turn.usage);
        const agentStep = step({
          source: 'agent',
          message: turn.message ?? '',
          ...(turn.reasoning ? { reasoning_content: turn.reasoning } : {}),
          ...(turn.modelName ? { model_name: turn.modelName } : {}),
          tool_calls: turn.calls.map(toAtifCall),
          metrics: { prompt_tokens: turn.usage.promptTokens, completion_tokens: turn.usage.completionTokens, cached_tokens: turn.usage.cachedTokens, cost_usd: turn.usage.costUsd },
          ...(turn.promptNotes ? { extra: { context: turn.promptNotes } } : {}),
        });
        if (turn.tokens) tokenTurns.push({ step: agentStep.step_id, ...turn.tokens });
        if (turn.calls.length === 0) {
          // A turn without tool calls is a message to the user (models often answer in plain text).
          if (turn.message) {
            const reply = await timed('modelMs', () => userEpisode.reply(turn.message ?? '', agentSignal));
            usage = addUsage(usage, reply.usage);
            step({ source: 'user', message: reply.message, extra: { disclosedFacts: reply.disclosedFacts } });
            userMessage = reply.message;
            if (reply.stop) end = { status: 'terminated', submitted: false, stop: reply.stop };
          } else {
            agentStep.extra = { ...agentStep.extra, error: 'empty turn: no message and no tool call' };
          }
          results = [];
          continue;
        }
        results = [];
        for (const call of turn.calls) {
          if ('invalid' in call) {
            results.push({ callId: call.id, content: `error: ${call.invalid}` });
            agentStep.extra = { ...agentStep.extra, error: call.invalid };
            continue;
          }
          if (call.name === 'run_command') {
            const r = await timed('sandboxMs', () => sandbox!.exec(call.command, {
              timeoutMs: env.sandbox.limits.commandTimeoutSec * 1000,
              maxOutputBytes: env.sandbox.limits.maxOutputBytes,
              cwd: env.sandbox.workdir,
              ...(env.sandbox.shell ? { shell: env.sandbox.shell } : {}),
              signal: agentSignal,
            }));
            // A session asked for but not given (a backend without the channel) is recorded as what ran.
            if (env.sandbox.shell === 'session' && r.shell !== 'session') ranStateless = true;
            results.push({ callId: call.id, content: formatCommandOutput(r), command: { exitCode: r.exitCode, durationMs: r.durationMs, timedOut: r.timedOut, truncated: r.truncated, stderr: r.stderr } });
          } else if (call.name === 'message_user') {
            const reply = await timed('modelMs', () => userEpisode.reply(call.text, agentSignal));
            usage = addUsage(usage, reply.usage);
            results.push({ callId: call.id, content: reply.message });
            step({ source: 'user', message: reply.message, extra: { disclosedFacts: reply.disclosedFacts, replyTo: call.id } });
            if (reply.stop) {
              end = { status: 'terminated', submitted: false, stop: reply.stop };
              break;
            }
          } else if (call.name === 'submit') {
            results.push({ callId: call.id, content: 'submitted' });
            end = { status: 'terminated', submitted: true };
            break;
          }
        }
        agentStep.observation = { results: results.map((r) => ({ source_call_id: r.callId, content: r.content, ...(r.command ? { command: r.command } : {}) })) };
      }
    } catch (err) {
      if (!agentPhase.signal.aborted || signal.aborted || isRetryable(err)) throw err;
      end = { status: 'truncated', reason: 'wall_clock' };
    } finally {
      clearTimeout(agentTimer);
    }

    const verified = await timed('sandboxMs', () => verify(sandbox!, env, { backend: deps.backend, request, signal, onSandbox: (box) => (sandbox = box) }));
    sandbox = verified.sandbox;
    verifier = verified.outcome;
    verification = verificationRecord(verified, env);
    logs = verified.logs;
    const rated = await timed('modelMs', () => userEpisode.rate({ steps, submitted: end?.status === 'terminated' && end.submitted, verifier, signal }));
    rating = rated.rating;
    if (end?.status === 'terminated' && end.stop) rating = { ...rating, stopReason: end.stop };
    usage = addUsage(usage, rated.usage);
    const judged = await timed('modelMs', () => deps.roles.judge.judge({ env, steps, verifier, signal }));
    tags = judged.tags;
    usage = addUsage(usage, judged.usage);
  } catch (err) {
    const reason = signal.reason;
    if (deps.signal?.aborted) {
      clearTimeout(wallTimer);
      await sandbox?.stop().catch(() => undefined);
      throw deps.signal.reason instanceof Error ? deps.signal.reason : new CancelledError();
    }
    if (isRetryable(err)) {
      // The sandbox host died under us (e.g. one Docker host of a pool): the caller replays this rollout elsewhere.
      clearTimeout(wallTimer);
      await sandbox?.stop().catch(() => undefined);
      throw err;
    }
    if (reason instanceof BudgetExceeded) {
      end = { status: 'truncated', reason: 'wall_clock' };
    } else if (isContextWindowExceeded(err)) {
      // A rater's or judge's prompt that cannot fit the window is not an infrastructure error either; an episode
      // that already ended keeps its ending (it just has no rating or tags).
      end ??= { status: 'truncated', reason: 'context' };
    } else {
      const message = err instanceof Error ? err.message : String(err);
      const kind = classifyFailure(err, phase);
      if (kind === 'fault') fault = message;
      else {
        error = message;
        errorKind = kind;
      }
    }
  } finally {
    clearTimeout(wallTimer);
    if (sandbox) await timed('sandboxMs', () => sandbox!.stop()).catch(() => undefined);
  }

  const status: RolloutStatus = error ? 'error' : (end?.status ?? (fault ? 'terminated' : 'error'));
  const rewards = computeRewards({
    verifierReward: fault ? 0 : (verifier?.reward ?? 0),
    rating,
    agentTurns,
    turnBudget: deps.budgets.turns,
    tags,
    weights: deps.rewardWeights,
  });
  const record: RolloutRecord = {
    formatVersion: 1,
    id: plan.rolloutId,
    runId: plan.runId,
    generation: plan.generation,
    pairId: plan.pairId,
    envId: env.id,
    userId: plan.user.id,
    agentId: plan.agent.id,
    trial: plan.trial,
    hint: plan.hint,
    seed: plan.runSeed,
    status,
    startedAt,
    finishedAt: clock.isoNow(),
    durationMs: clock.now() - startedMs,
    roles: { agent: deps.roles.agent.label, user: deps.roles.user.label, judge: deps.roles.judge.label },
    sandbox: { backend: deps.backend.name, host: sandbox?.host ?? 'none', image: env.sandbox.image, ...(deps.backend.name === 'process' ? { unsandboxed: true } : {}), ...(env.sandbox.shell ? { shell: ranStateless ? 'stateless' : env.sandbox.shell } : {}) },
    steps,
    rewards,
    success: status !== 'error' && !fault && isSuccess(rewards),
    tags,
    usage,
    timing,
  };
  const models = roleModels(deps.roles);
  if (models) record.models = models;
  if (tokenTurns.length > 0) record.tokens = tokenTurns;
  if (end?.status === 'truncated') record.truncationReason = end.reason;
  if (error) record.error = error;
  if (errorKind) record.errorKind = errorKind;
  if (fault) record.fault = fault;
  if (verification) record.verification = verification;
  if (logs) record.logs = logs;
  if (verifier) record.verifier = verifier;
  if (rating) record.userRating = rating;
  return record;
}

/**
 * Errors that say the same rollout may succeed if played again elsewhere: a lost sandbox host. (Model errors are
 * retried by the model adapter itself; when they still fail, the rollout records the error.)
 */
export function isRetryable(err: unknown): boolean {
  return err instanceof Error && err.name === 'SandboxHostLostError';
}

class BudgetExceeded extends Error {
  constructor(readonly budget: 'wall_clock') {
    super(`budget exceeded: ${budget}`);
  }
}

export function sandboxRequest(env: EnvironmentSpec, labels: Record<string, string>): SandboxRequest {
  return {
    image: env.sandbox.image,
    workdir: env.sandbox.workdir,
    files: env.sandbox.files,
    setup: env.sandbox.setup,
    env: env.sandbox.env,
    limits: env.sandbox.limits,
    labels,
    ...(env.sandbox.agentUser === 'root' ? { agentUser: 'root' as const } : {}),
  };
}

/**
 * Runs the verifier by the trust rule in a sandbox where the agent (or the oracle) just worked; returns the outcome
 * and stops whatever sandbox the verifier ran in, including `sandbox` itself.
 */
export async function runVerifier(sandbox: Sandbox, env: EnvironmentSpec, backend: SandboxBackend, request: SandboxRequest, signal?: Cancellation): Promise<VerifierOutcome> {
  let box = sandbox;
  try {
    const r = await verify(sandbox, env, { backend, request, ...(signal ? { signal } : {}), onSandbox: (b) => (box = b) });
    box = r.sandbox;
    return r.outcome;
  } finally {
    if (box !== sandbox) await box.stop().catch(() => undefined);
  }
}

/**
 * Where a failure came from decides its class: a sandbox error after the sandbox was up is the agent's (a failed
 * rollout), except a missing image or a verifier sandbox that would not start; a model call's failure, or a
 * sandbox that never came up, is infrastructure.
 */
export function classifyFailure(err: unknown, phase: 'start' | 'sandbox' | 'model'): ErrorKind | 'fault' {
  const name = err instanceof Error ? err.name : '';
  if (name === 'SandboxHostLostError') return 'sandbox-host';
  if (name === 'SandboxImageMissingError' || name === 'VerifierSandboxStartError') return 'sandbox-start';
  if (phase === 'model') return 'model';
  if (phase === 'start') return 'sandbox-start';
  return 'fault';
}

export function formatCommandOutput(r: ExecResult): string {
  const parts = [`exit code ${r.exitCode}${r.timedOut ? ' (timed out)' : ''}${r.truncated ? ' (output truncated)' : ''}`];
  if (r.stdout) parts.push(r.stdout.replace(/\n$/, ''));
  if (r.stderr) parts.push(`[stderr]\n${r.stderr.replace(/\n$/, '')}`);
  return parts.join('\n');
}

function toAtifCall(call: AgentToolCall): NonNullable<AtifStep['tool_calls']>[number] {
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
