// Schemas of the run directory's records, checked before any field is used (as a path, a map key, a number).
// They check what readers rely on and let everything else through: a field or an event type added by a newer
// writer is kept, not stripped or refused. Validation returns the record as written, never a reshaped copy.
import { z } from 'zod';
import type { RunEvent, RunManifest } from '../core/ports/runStore.js';
import type { RolloutRecord, RolloutSummary } from '../core/rollout/trajectory.js';
import { trainerHookResultSchema } from '../core/spec/trainerHookResult.js';
import { isSafeGeneration, isSafeId, maxGeneration, safeIdPattern } from './runPaths.js';

const safeId = z.string().regex(safeIdPattern, 'not a safe name (letters, digits, ".", "_", "-", starting with a letter or digit)');
// A retired pair is named "<envId>@<pairId>" (the controller's spelling); the id only keys a lookup, never a path.
const retiredId = z.string().refine((id) => id.split('@').length <= 2 && id.split('@').every((part) => safeIdPattern.test(part)), 'not a safe name or "<envId>@<pairId>"');
const generation = z.number().int().min(0).max(maxGeneration);
const finite = z.number().refine(Number.isFinite, 'not a finite number');

export const rolloutSummarySchema = z.looseObject({
  id: safeId,
  generation,
  pairId: z.string(),
  envId: safeId,
  userId: safeId,
  trial: z.number().int(),
  hint: z.boolean(),
  status: z.string(),
  success: z.boolean(),
  reward: finite,
  durationMs: finite,
  costUsd: finite,
  tokens: finite,
  steps: z.number().int().min(0),
  tags: z.array(z.string()),
  firstErrorStep: z.number().int().optional(),
  unfinished: z.looseObject({ step: z.string(), reason: z.string() }).optional(),
});

const pairPlan = z.looseObject({ pairId: z.string(), envId: safeId, userId: safeId, source: z.string() });
const childKind = z.enum(['environment', 'user']);
const reward = z.number().min(0).max(1).nullable();
const screeningPlays = z.looseObject({ successes: z.number().int().min(0), trials: z.number().int().min(0) });
const childValidation = z.looseObject({ oracleReward: reward, emptyReward: reward, screening: screeningPlays.optional() }).optional();
/** A child's success as the fitted model predicted it when the child was planned (absent in runs written before 2026-12-06). */
const plannedSuccess = z.number().min(0).max(1).optional();

/** Known event types and the fields readers use; an unknown type needs only seq, at and type. */
const eventBodies: Record<string, z.ZodType> = {
  'run.started': z.looseObject({ runId: z.string() }),
  'run.resumed': z.looseObject({ fromGeneration: generation }),
  'generation.started': z.looseObject({ generation, agentId: safeId, pairs: z.array(pairPlan) }),
  'rollout.started': z.looseObject({ generation, rolloutId: safeId, pairId: z.string() }),
  'rollout.finished': z.looseObject({ summary: rolloutSummarySchema }),
  'spec.added': z.looseObject({ kind: childKind, id: safeId, parent: safeId.nullable(), operator: z.string().nullable(), generation, validation: childValidation, predicted: plannedSuccess }),
  // A rejected child was never written: its id may be whatever a designer proposed, and is never a path.
  'child.rejected': z.looseObject({ kind: childKind, id: z.string(), parent: z.string(), operator: z.string(), reason: z.string(), generation, validation: childValidation, predicted: plannedSuccess }),
  'pair.added': z.looseObject({ pairId: z.string(), envId: safeId, userId: safeId, parent: safeId, operator: z.string(), generation, predicted: z.number().min(0).max(1), screening: screeningPlays.optional() }),
  'pair.rejected': z.looseObject({ envId: z.string(), userId: z.string(), parent: z.string(), operator: z.string(), reason: z.string(), generation, predicted: z.number().min(0).max(1), screening: screeningPlays.optional() }),
  'spec.retired': z.looseObject({ kind: childKind, id: retiredId, reason: z.string(), generation }),
  'agent.updated': z.looseObject({ generation, fromId: safeId, toId: safeId, change: z.string(), promoted: z.boolean() }),
  'hook.finished': z.looseObject({ generation, exitCode: z.number(), durationMs: z.number(), outputFile: z.string(), result: trainerHookResultSchema.optional() }),
  'generation.finished': z.looseObject({ generation }),
  'run.finished': z.looseObject({ status: z.enum(['completed', 'stopped', 'failed']), message: z.string().optional() }),
};

const eventBase = z.looseObject({ seq: z.number().int(), at: z.string(), type: z.string() });

function firstIssue(error: z.ZodError): string {
  const i = error.issues[0]!;
  return `${i.path.join('.') || '(root)'}: ${i.message}`;
}

const describeValue = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v === 'object' ? 'an object' : JSON.stringify(v).slice(0, 40));

/** The event, or why it cannot be used (reads after "events.jsonl:N: "). */
export function checkRunEvent(value: unknown): { event: RunEvent } | { problem: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { problem: `${describeValue(value)} is not an event (an event is a JSON object with seq, at and type)` };
  }
  const type = (value as { type?: unknown }).type;
  if (typeof type !== 'string') return { problem: 'an event without "type"' };
  const base = eventBase.safeParse(value);
  if (!base.success) return { problem: `a ${type} event: ${firstIssue(base.error)}` };
  const body = eventBodies[type];
  if (body) {
    const r = body.safeParse(value);
    if (!r.success) return { problem: `a ${type} event: ${firstIssue(r.error)}` };
  }
  return { event: value as RunEvent };
}

export function checkRolloutSummary(value: unknown): { summary: RolloutSummary } | { problem: string } {
  const r = rolloutSummarySchema.safeParse(value);
  return r.success ? { summary: value as RolloutSummary } : { problem: firstIssue(r.error) };
}

const toolCall = z.looseObject({ tool_call_id: z.string(), function_name: z.string(), arguments: z.record(z.string(), z.unknown()) });
const observationResult = z.looseObject({ source_call_id: z.string(), content: z.string() });
const step = z.looseObject({
  step_id: z.number().int(),
  timestamp: z.string(),
  source: z.string(),
  message: z.string(),
  tool_calls: z.array(toolCall).optional(),
  observation: z.looseObject({ results: z.array(observationResult) }).optional(),
  extra: z.record(z.string(), z.unknown()).optional(),
});

export const rolloutRecordSchema = z.looseObject({
  id: safeId,
  runId: z.string(),
  generation,
  pairId: z.string(),
  envId: safeId,
  userId: safeId,
  agentId: z.string(),
  trial: z.number().int(),
  hint: z.boolean(),
  status: z.string(),
  // Viewers and exporters show these; absent in runs written before them.
  truncationReason: z.string().optional(),
  unfinished: z.looseObject({ step: z.string(), reason: z.string(), note: z.string() }).optional(),
  startedAt: z.string(),
  finishedAt: z.string(),
  durationMs: finite,
  sandbox: z.looseObject({ backend: z.string(), host: z.string(), image: z.string() }),
  steps: z.array(step),
  rewards: z.looseObject({ total: finite }).catchall(z.number()),
  success: z.boolean(),
  tags: z.array(z.string()),
  usage: z.looseObject({ promptTokens: finite, completionTokens: finite, costUsd: finite }),
});

export function checkRolloutRecord(value: unknown): { record: RolloutRecord } | { problem: string } {
  const r = rolloutRecordSchema.safeParse(value);
  return r.success ? { record: value as RolloutRecord } : { problem: firstIssue(r.error) };
}

export const runManifestSchema = z.looseObject({
  formatVersion: z.number().int(),
  runId: z.string(),
  name: z.string(),
  seed: z.number(),
  toolVersion: z.string(),
  startedAt: z.string(),
  config: z.record(z.string(), z.unknown()),
  configPath: z.string().optional(),
  roles: z.record(z.string(), z.string()),
});

export function checkManifest(value: unknown): { manifest: RunManifest } | { problem: string } {
  const r = runManifestSchema.safeParse(value);
  return r.success ? { manifest: value as RunManifest } : { problem: firstIssue(r.error) };
}

export { isSafeGeneration, isSafeId };
