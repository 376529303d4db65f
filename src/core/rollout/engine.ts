import type { Cancellation } from '../ports/cancellation.js';
import { addUsage } from '../ports/model.js';
import type { Sandbox, SandboxBackend, SandboxRequest } from '../ports/sandbox.js';
import { agentTools } from '../roles/agentTools.js';
import { oracleView } from '../roles/oracleView.js';
import type { AgentEpisode, AgentRole, JudgeRole, UserEpisode, UserTurn } from '../roles/ports.js';
import type { EnvironmentSpec } from '../spec/environment.js';
import { playAgentPhase } from './agentPhase.js';
import { beginEpisode, recordStep, timed, type Episode } from './episode.js';
import { settleFailure } from './failure.js';
import { rolloutRecord } from './rolloutRecord.js';
import type { RolloutDeps, RolloutPlan } from './rolloutPlan.js';
import type { RolloutRecord, VerifierOutcome } from './trajectory.js';
import { verificationRecord, verify } from './verification.js';

export { classifyFailure, isRetryable } from './failure.js';
export type { RolloutDeps, RolloutPlan } from './rolloutPlan.js';
export { formatCommandOutput } from './toolCalls.js';

/**
 * Plays one episode: sandbox up → the user opens → agent turns (commands, messages to the user) under budgets →
 * submit → verifier (its files copied in only now) → the user's rating → judge tags → rewards. Any failure inside
 * is recorded in the trajectory with status "error"; it never throws, except on cancellation.
 */
export async function playRollout(plan: RolloutPlan, deps: RolloutDeps): Promise<RolloutRecord> {
  const { env } = plan;
  const ep = beginEpisode(plan, deps);
  try {
    const request = sandboxRequest(env, { ...deps.labels, 'coevolve.rollout': plan.rolloutId });
    await startSandbox(ep, deps.backend, request);
    const user = deps.roles.user.begin({ env, profile: plan.user, rng: ep.rng.fork('user') });
    const opening = await userOpens(ep, user);
    const agent = beginAgent(ep, plan, deps.roles.agent);
    await playAgentPhase(ep, env, deps.budgets, { agent, user }, opening);
    await runEpisodeVerifier(ep, env, deps.backend, request);
    await userRates(ep, user);
    await judgeTags(ep, env, deps.roles.judge);
  } catch (err) {
    settleFailure(ep, deps.signal, err);
  } finally {
    // The one place the rollout's sandbox is stopped, whether it ended, failed, was cancelled or lost its host.
    clearTimeout(ep.wallTimer);
    if (ep.sandbox) await timed(ep, 'sandboxMs', () => ep.sandbox!.stop()).catch(() => undefined);
  }
  return rolloutRecord(plan, deps, ep);
}

async function startSandbox(ep: Episode, backend: SandboxBackend, request: SandboxRequest): Promise<void> {
  holdSandbox(ep, await timed(ep, 'sandboxMs', () => backend.start(request, { signal: ep.signal })));
  ep.sandboxUp = true;
}

/** The sandbox the rollout now runs in, and stops at its end; its host is the one the record names. */
function holdSandbox(ep: Episode, box: Sandbox): void {
  ep.sandbox = box;
  ep.host = box.host;
}

async function userOpens(ep: Episode, user: UserEpisode): Promise<UserTurn> {
  const opening = await timed(ep, 'modelMs', () => user.open(ep.signal));
  ep.usage = addUsage(ep.usage, opening.usage);
  recordStep(ep, { source: 'user', message: opening.message, extra: { disclosedFacts: opening.disclosedFacts } });
  return opening;
}

/** The agent's episode on the task as the agent may see it; a hint play records its hint as a system step. */
function beginAgent(ep: Episode, plan: RolloutPlan, role: AgentRole): AgentEpisode {
  const { env } = plan;
  const agent = role.begin({
    task: {
      instruction: env.instruction, family: env.family, workdir: env.sandbox.workdir, tools: agentTools,
      ...(plan.hint && env.hint ? { hint: env.hint } : {}),
      // Only an agent that says it knows the oracle gets it, and then without the values the user holds back.
      ...(role.knowsOracle ? { oracle: oracleView(env) } : {}),
    },
    config: plan.agent,
    rng: ep.rng.fork('agent'),
  });
  if (plan.hint && env.hint) recordStep(ep, { source: 'system', message: `HINT: ${env.hint}`, extra: { hint: true } });
  return agent;
}

/**
 * Verification by the trust rule; the sandbox it ran in replaces the agent's, so the rollout's end stops it. In
 * fresh mode verify stops the agent's sandbox itself: from then until the verifier's exists there is none to stop
 * (a cancellation in between stopped the agent's a second time).
 */
async function runEpisodeVerifier(ep: Episode, env: EnvironmentSpec, backend: SandboxBackend, request: SandboxRequest): Promise<void> {
  ep.stage = 'verification';
  const verified = await timed(ep, 'sandboxMs', () => verify(ep.sandbox!, env, {
    backend, request, signal: ep.signal,
    onAgentStopped: () => (ep.sandbox = undefined),
    onSandbox: (box) => holdSandbox(ep, box),
  }));
  holdSandbox(ep, verified.sandbox);
  ep.verifier = verified.outcome;
  ep.verification = verificationRecord(verified, env);
  ep.logs = verified.logs;
}

/** The user's rating, told whether the agent submitted and what the verifier found; a user who stopped says why. */
async function userRates(ep: Episode, user: UserEpisode): Promise<void> {
  ep.stage = 'rating';
  const rated = await timed(ep, 'modelMs', () => user.rate({ steps: ep.steps, submitted: ep.end?.status === 'terminated' && ep.end.submitted, verifier: ep.verifier, signal: ep.signal }));
  ep.rating = rated.rating;
  if (ep.end?.status === 'terminated' && ep.end.stop) ep.rating = { ...ep.rating, stopReason: ep.end.stop };
  ep.usage = addUsage(ep.usage, rated.usage);
}

async function judgeTags(ep: Episode, env: EnvironmentSpec, judge: JudgeRole): Promise<void> {
  ep.stage = 'judging';
  const judged = await timed(ep, 'modelMs', () => judge.judge({ env, steps: ep.steps, verifier: ep.verifier, signal: ep.signal }));
  ep.tags = judged.tags;
  ep.usage = addUsage(ep.usage, judged.usage);
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
 * and stops the fresh sandbox the verifier ran in. `sandbox` stays the caller's to stop, unless the verifier stopped
 * it already (fresh mode), which `onAgentStopped` reports: a second stop would reach a backend that has let it go.
 */
export async function runVerifier(sandbox: Sandbox, env: EnvironmentSpec, backend: SandboxBackend, request: SandboxRequest, options: { signal?: Cancellation; onAgentStopped?: () => void } = {}): Promise<VerifierOutcome> {
  const { signal, onAgentStopped } = options;
  let box = sandbox;
  try {
    const r = await verify(sandbox, env, { backend, request, ...(signal ? { signal } : {}), ...(onAgentStopped ? { onAgentStopped } : {}), onSandbox: (b) => (box = b) });
    box = r.sandbox;
    return r.outcome;
  } finally {
    if (box !== sandbox) await box.stop().catch(() => undefined);
  }
}
