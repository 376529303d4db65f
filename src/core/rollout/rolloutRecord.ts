import type { Episode } from './episode.js';
import { computeRewards, isSuccess } from './rewards.js';
import { roleModels } from './roleModels.js';
import type { RolloutDeps, RolloutPlan } from './rolloutPlan.js';
import type { RolloutRecord, RolloutStatus } from './trajectory.js';

/** The record of a played episode: its status, reward components and everything it gathered. */
export function rolloutRecord(plan: RolloutPlan, deps: RolloutDeps, ep: Episode): RolloutRecord {
  const { env } = plan;
  const { error, fault, end } = ep;
  const status: RolloutStatus = error ? 'error' : (end?.status ?? (fault ? 'terminated' : 'error'));
  const rewards = computeRewards({
    verifierReward: fault ? 0 : (ep.verifier?.reward ?? 0),
    rating: ep.rating,
    agentTurns: ep.agentTurns,
    turnBudget: deps.budgets.turns,
    tags: ep.tags,
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
    startedAt: ep.startedAt,
    finishedAt: ep.clock.isoNow(),
    durationMs: ep.clock.now() - ep.startedMs,
    roles: { agent: deps.roles.agent.label, user: deps.roles.user.label, judge: deps.roles.judge.label },
    sandbox: { backend: deps.backend.name, host: ep.host ?? 'none', image: env.sandbox.image, ...(deps.backend.name === 'process' ? { unsandboxed: true } : {}), ...(env.sandbox.shell ? { shell: ep.ranStateless ? 'stateless' : env.sandbox.shell } : {}) },
    steps: ep.steps,
    rewards,
    success: status !== 'error' && !fault && isSuccess(rewards),
    tags: ep.tags,
    usage: ep.usage,
    timing: ep.timing,
  };
  addOptionalFields(record, deps, ep);
  return record;
}

/** The fields a record has only when they happened; their order here is their order in the record's JSON. */
function addOptionalFields(record: RolloutRecord, deps: RolloutDeps, ep: Episode): void {
  const models = roleModels(deps.roles);
  if (models) record.models = models;
  if (ep.tokenTurns.length > 0) record.tokens = ep.tokenTurns;
  if (ep.end?.status === 'truncated') record.truncationReason = ep.end.reason;
  if (ep.unfinished) record.unfinished = ep.unfinished;
  if (ep.error) record.error = ep.error;
  if (ep.errorKind) record.errorKind = ep.errorKind;
  if (ep.fault) record.fault = ep.fault;
  if (ep.verification) record.verification = ep.verification;
  if (ep.logs) record.logs = ep.logs;
  if (ep.verifier) record.verifier = ep.verifier;
  if (ep.rating) record.userRating = ep.rating;
}
