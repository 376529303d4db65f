// The host side of protocol.ts: the zod schemas every message from a webview is validated with where it arrives (the
// host trusts nothing a webview sends: a webview renders model-written text). Only hosts import this file (the
// extension, `coevolve view`); the webview bundles import protocol.ts, whose types are inferred from these schemas
// by type-only imports, so no zod ships to a page (it was ~450 KB of every page bundle).
import { z } from 'zod';
import { rolloutSortKeys, type CommandMethod, type ParsedWebviewMessage, type RequestMethod } from './protocol.js';

export const rolloutRefSchema = z.strictObject({
  runDir: z.string().min(1).max(4096),
  generation: z.number().int().min(0),
  rolloutId: z.string().min(1).max(256),
});

const runDirSchema = z.strictObject({ runDir: z.string().min(1).max(4096) });

const shortText = z.string().min(1).max(256);
/** Filters of the flat rollout table (and of search): every one optional, all of them must hold. */
export const rolloutFilterSchema = z.strictObject({
  generations: z.array(z.number().int().min(0)).max(10_000).optional(),
  /** Score threshold: total reward at least / at most. */
  minReward: z.number().finite().optional(),
  maxReward: z.number().finite().optional(),
  statuses: z.array(z.enum(['terminated', 'truncated', 'error'])).max(3).optional(),
  outcome: z.enum(['passed', 'failed']).optional(),
  families: z.array(shortText).max(1000).optional(),
  users: z.array(shortText).max(1000).optional(),
  /** Any of these tags. */
  tags: z.array(shortText).max(1000).optional(),
  /** true: hint plays only; false: no hint plays. */
  hint: z.boolean().optional(),
  pairId: shortText.optional(),
  /** Rollouts of any of these environments. */
  envIds: z.array(shortText).max(1000).optional(),
});
export const rolloutTableQuerySchema = z.strictObject({
  runDir: z.string().min(1).max(4096),
  filter: rolloutFilterSchema.optional(),
  sort: z.strictObject({ key: z.enum(rolloutSortKeys), dir: z.enum(['asc', 'desc']) }).optional(),
  offset: z.number().int().min(0).optional(),
  limit: z.number().int().min(1).max(5000).optional(),
});
export const rolloutSearchSchema = z.strictObject({
  runDir: z.string().min(1).max(4096),
  query: z.string().min(1).max(200),
  filter: rolloutFilterSchema.optional(),
  limit: z.number().int().min(1).max(1000).optional(),
});

/** Filters of the dataset view (the editor's Dataset view has the same): every one optional, all must hold. */
export const datasetFiltersSchema = z.strictObject({
  verdict: z.enum(['any', 'accepted', 'rejected']).optional(),
  /** Only items whose pair's (an environment's) success rate is inside the run's band. */
  inBand: z.boolean().optional(),
  minReward: z.number().finite().optional(),
  /** Any of these among the item's tags or curation labels. */
  tags: z.array(shortText).max(1000).optional(),
  families: z.array(shortText).max(1000).optional(),
  generations: z.array(z.number().int().min(0)).max(10_000).optional(),
});

/** Params of each request; the result types are below, keyed the same way. */
export const requestParams = {
  'rollout/get': rolloutRefSchema,
  'dashboard/get': z.strictObject({ runDir: z.string().min(1).max(4096), compareRunDir: z.string().min(1).max(4096).optional() }),
  'runs/list': z.strictObject({}),
  /** Every run's name, id, start and status, without its metrics (a picker of runs: a few small reads per run). */
  'runs/names': z.strictObject({}),
  /** A window of the runs list (newest first): only its rows are read, so a list of thousands of runs opens at once. */
  'runs/page': z.strictObject({ offset: z.number().int().min(0).max(10_000_000), limit: z.number().int().min(1).max(1000) }),
  /** The flat rollout table across generations: filtered, sorted, one page of rows. */
  'rollouts/table': rolloutTableQuerySchema,
  /** Full-text search across the transcripts of a run's rollouts (case-insensitive substring). */
  'rollouts/search': rolloutSearchSchema,
  /** The `coevolve eval` result stored with a run directory (artifacts/eval.json), if any. */
  'eval/get': runDirSchema,
  /** Curated rollouts and environments (curation.jsonl) of every run the host shows, or of one run, filtered. */
  'dataset/list': z.strictObject({ runDir: z.string().min(1).max(4096).optional(), filters: datasetFiltersSchema.optional(), limit: z.number().int().min(1).max(10_000).optional() }),
  /** Record a curation decision in the run's curation.jsonl (the browser host answers it only with --allow-curation). */
  'curation/apply': z.strictObject({
    runDir: z.string().min(1).max(4096),
    target: z.strictObject({ kind: z.enum(['rollout', 'environment']), id: z.string().min(1).max(256) }),
    action: z.enum(['accept', 'reject', 'clear', 'label', 'unlabel', 'comment']),
    label: z.string().min(1).max(128).optional(),
    text: z.string().min(1).max(4000).optional(),
  }),
  /** One environment or user version of a run, with what changed against its parent (for the lineage's detail). */
  'spec/get': z.strictObject({ runDir: z.string().min(1).max(4096), kind: z.enum(['environment', 'user']), id: z.string().min(1).max(256) }),
} as const;

export const commandParams = {
  'rollout/open': rolloutRefSchema.extend({ step: z.number().int().min(1).optional() }),
  'rollout/rerun': rolloutRefSchema,
  'rollout/replay': rolloutRefSchema,
  'file/open': z.strictObject({ path: z.string().min(1).max(4096) }),
  /** Curate the rollout shown: the host runs the same Accept / Reject / Clear / Label / Comment commands as the tree. */
  'rollout/curate': rolloutRefSchema.extend({ action: z.enum(['accept', 'reject', 'clear', 'label', 'comment']) }),
  /** The webview's view state changed (step, tab, search); the host keeps it for re-sends and the serializer. */
  'state/changed': z.strictObject({ step: z.number().int().min(0).optional(), tab: z.string().max(32).optional(), compareRunDir: z.string().max(4096).optional() }),
} as const;

export const notificationParams = {
  'rollout/changed': rolloutRefSchema,
  'run/changed': runDirSchema,
  /** A run's curation file changed (a decision in the editor, another browser, or this one). */
  'dataset/changed': runDirSchema,
  /** Ask the viewer to show a step (opened from the tree with "first error", or a reveal). */
  'view/goToStep': z.strictObject({ step: z.number().int().min(1) }),
} as const;

// Envelopes.
export const webviewMessageSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('ready') }),
  z.strictObject({ kind: z.literal('request'), id: z.number().int().min(0), method: z.string().max(64), params: z.unknown() }),
  z.strictObject({ kind: z.literal('command'), method: z.string().max(64), params: z.unknown() }),
]);

// A plain union: the two response shapes share the discriminator value "response".
export const hostMessageSchema = z.union([
  z.strictObject({ kind: z.literal('response'), id: z.number().int().min(0), ok: z.literal(true), result: z.unknown() }),
  z.strictObject({ kind: z.literal('response'), id: z.number().int().min(0), ok: z.literal(false), error: z.string() }),
  z.strictObject({ kind: z.literal('notification'), method: z.string().max(64), params: z.unknown() }),
]);

/**
 * Validates a message from a webview: the envelope, the method name and the params of that method. Returns an
 * error text naming what was wrong instead of throwing, so the host can log it and answer the request.
 */
export function parseWebviewMessage(raw: unknown): { ok: true; message: ParsedWebviewMessage } | { ok: false; error: string; id?: number } {
  const env = webviewMessageSchema.safeParse(raw);
  if (!env.success) return { ok: false, error: `malformed webview message: ${z.prettifyError(env.error)}` };
  const m = env.data;
  if (m.kind === 'ready') return { ok: true, message: m };
  const table: Record<string, z.ZodType> = m.kind === 'request' ? requestParams : commandParams;
  const schema = Object.hasOwn(table, m.method) ? table[m.method] : undefined;
  const id = m.kind === 'request' ? m.id : undefined;
  if (!schema) return { ok: false, error: `unknown ${m.kind} "${m.method}"`, ...(id !== undefined ? { id } : {}) };
  const params = schema.safeParse(m.params);
  if (!params.success) return { ok: false, error: `bad params for ${m.method}: ${z.prettifyError(params.error)}`, ...(id !== undefined ? { id } : {}) };
  return m.kind === 'request'
    ? { ok: true, message: { kind: 'request', id: m.id, method: m.method as RequestMethod, params: params.data } }
    : { ok: true, message: { kind: 'command', method: m.method as CommandMethod, params: params.data } };
}

/** The state a panel keeps with `setState`, which the serializer gets back after a reload. */
export const rolloutPanelStateSchema = rolloutRefSchema.extend({ step: z.number().int().min(0).optional(), tab: z.string().max(32).optional() });
export const dashboardPanelStateSchema = z.strictObject({ runDir: z.string().min(1).max(4096), compareRunDir: z.string().max(4096).optional(), tab: z.string().max(32).optional() });
