// The one host↔webview message protocol. Every message is an envelope validated with zod where it arrives: the host
// trusts nothing a webview sends (a webview renders model-written text), the webview checks the host's envelopes.
// Descriptors are keyed `scope/verb`: requests (webview asks, host answers with a response), commands (webview
// asks the host to act; no answer) and notifications (host tells the webview something changed).
// Shared by the extension host bundle and the browser bundles: imports zod and types only.
import { z } from 'zod';
import type { GenerationMetrics } from '../core/metrics/generationMetrics.js';
import type { EvalResult } from '../core/metrics/metricsSchema.js';
import type { RolloutRecord, RolloutSummary } from '../core/rollout/trajectory.js';
import type { DatasetPage } from '../viewdata/datasetItems.js';

export const rolloutRefSchema = z.strictObject({
  runDir: z.string().min(1).max(4096),
  generation: z.number().int().min(0),
  rolloutId: z.string().min(1).max(256),
});
export type RolloutRef = z.infer<typeof rolloutRefSchema>;

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
export type RolloutFilter = z.infer<typeof rolloutFilterSchema>;
export const rolloutSortKeys = ['generation', 'reward', 'durationMs', 'costUsd', 'tokens', 'steps', 'family', 'userId', 'envId', 'status', 'trial'] as const;
export type RolloutSortKey = (typeof rolloutSortKeys)[number];
export const rolloutTableQuerySchema = z.strictObject({
  runDir: z.string().min(1).max(4096),
  filter: rolloutFilterSchema.optional(),
  sort: z.strictObject({ key: z.enum(rolloutSortKeys), dir: z.enum(['asc', 'desc']) }).optional(),
  offset: z.number().int().min(0).optional(),
  limit: z.number().int().min(1).max(5000).optional(),
});
export type RolloutTableQuery = z.infer<typeof rolloutTableQuerySchema>;
export const rolloutSearchSchema = z.strictObject({
  runDir: z.string().min(1).max(4096),
  query: z.string().min(1).max(200),
  filter: rolloutFilterSchema.optional(),
  limit: z.number().int().min(1).max(1000).optional(),
});
export type RolloutSearchQuery = z.infer<typeof rolloutSearchSchema>;

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
export type DatasetFilterParams = z.infer<typeof datasetFiltersSchema>;

/** Params of each request; the result types are below, keyed the same way. */
export const requestParams = {
  'rollout/get': rolloutRefSchema,
  'dashboard/get': z.strictObject({ runDir: z.string().min(1).max(4096), compareRunDir: z.string().min(1).max(4096).optional() }),
  'runs/list': z.strictObject({}),
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

export type RequestMethod = keyof typeof requestParams;
export type CommandMethod = keyof typeof commandParams;
export type NotificationMethod = keyof typeof notificationParams;
export type RequestParamsOf<M extends RequestMethod> = z.infer<(typeof requestParams)[M]>;
export type CommandParamsOf<M extends CommandMethod> = z.infer<(typeof commandParams)[M]>;
export type NotificationParamsOf<M extends NotificationMethod> = z.infer<(typeof notificationParams)[M]>;

/** One part of a line diff (the `diff` package's Change, reduced to what is drawn). */
export interface DiffPart {
  value: string;
  added?: boolean;
  removed?: boolean;
}

export interface SpecView {
  kind: 'environment' | 'user';
  id: string;
  /** The spec as YAML, as a user would write it. */
  text: string;
  parent: string | null;
  operator: string | null;
  generation: number;
  /** Line diff against the parent's YAML; null for a seed or when the parent is not in the run. */
  diff: DiffPart[] | null;
  problem?: string;
  /** Human name (title, or persona and archetype). */
  name?: string;
  /** Against the parent: the difficulty knobs (environment) or behaviour knobs (user) that moved. */
  knobChanges?: { knob: string; from: number | string | null; to: number | string | null }[];
  /** Against the parent: which fields changed and by how many lines of YAML, so a regenerated file reads as one line. */
  fieldChanges?: { field: string; added: number; removed: number }[];
  /** Design difficulty (the spec's label) of an environment, and of its parent. */
  difficulty?: { value: number; parent?: number };
}

/** A fact only the user knows (from the environment's user context or the user profile), and whether it was told. */
export interface HiddenFactView {
  id: string;
  text: string;
  source: 'environment' | 'user';
  /** The task's goal needs it (environment `user.requiredFacts`, or the user goal's `requires`). */
  required: boolean;
  /** The user step that disclosed it, if any. */
  disclosedAtStep?: number;
}

/** The weights of the run config that turn reward components into the scalar (RunConfig.reward). */
export interface RewardWeights {
  verifier: number;
  efficiency: number;
  rubric: number;
  satisfaction: number;
}

export interface RolloutView {
  ref: RolloutRef;
  /** null while the rollout is still running (its file is written when it finishes). */
  record: RolloutRecord | null;
  summary: RolloutSummary | null;
  running: boolean;
  filePath: string;
  env: SpecView | null;
  user: SpecView | null;
  runName: string;
  /** A name that tells this run from others of the same config: its name and start time. */
  runLabel?: string;
  rewardWeights?: RewardWeights;
  /** Hidden facts of the pair against what the user disclosed in this rollout. */
  facts?: HiddenFactView[];
  /** The rollout's curation state (curation.jsonl), for the viewer's Accept / Reject buttons. */
  curation?: { verdict?: 'accepted' | 'rejected'; labels: string[]; comments: number };
  /** The rubric vocabulary (tag → polarity and meaning) of the tags this rollout carries. */
  rubric?: Record<string, { polarity: number; description: string }>;
  /** Human names of the environment and the user ("Log triage … × Terse ops engineer"). */
  pairLabel?: { env: string; user: string };
}

export interface LineageNode {
  kind: 'environment' | 'user';
  id: string;
  parent: string | null;
  operator: string | null;
  generation: number;
  retired?: string;
  family?: string;
  difficulty?: number;
  /** Success rate of this spec's pairs in the last generation that played it, from the stored pair statistics. */
  lastPlayed?: { generation: number; successRate: number; pairs: number; successes?: number; plays?: number };
  /** Human name: the environment's title, or the user's persona and archetype. */
  name?: string;
  /** Measured difficulty (logits, metrics v2) from the last generation that fitted it, with its standard error. */
  measured?: { value: number; se: number; plays: number; generation: number };
}

export interface RejectedChild {
  kind: 'environment' | 'user';
  id: string;
  parent: string;
  operator: string;
  reason: string;
  generation: number;
}

export interface RunOverview {
  runDir: string;
  name: string;
  runId: string;
  status: string;
  startedAt: string;
  k: number;
  band: { low: number; high: number };
  roles: Record<string, string>;
  generations: GenerationMetrics[];
  /** Generations started but without stored metrics yet. */
  pendingGenerations: number[];
}

export interface DashboardView {
  run: RunOverview;
  lineage: LineageNode[];
  rejections: RejectedChild[];
  agentUpdates: { generation: number; fromId: string; toId: string; change: string; promoted: boolean; heldOut?: { incumbent: number; candidate: number } }[];
  /** Pairs taken out of the archive (spec.retired events), with why. */
  retirements?: { generation: number; kind: 'environment' | 'user'; id: string; envId: string; pairId?: string; reason: string }[];
  compare: RunOverview | null;
}

export interface RunChoice {
  runDir: string;
  label: string;
  description: string;
  name: string;
  runId: string;
  startedAt: string;
  status: string;
  /** Generations with stored metrics. */
  generations: number;
  /** Rollouts of those generations (from their stored metrics). */
  rollouts: number;
  /** Success rate of the last generation with metrics. */
  lastSuccessRate?: number;
}

/** A window of the runs list and how many runs there are in all. */
export interface RunsWindow {
  total: number;
  offset: number;
  runs: RunChoice[];
}

/** One rollout of the flat table: its index summary plus what the run knows of its environment. */
export interface RolloutRow {
  id: string;
  generation: number;
  pairId: string;
  envId: string;
  userId: string;
  family: string;
  difficulty: number | null;
  trial: number;
  hint: boolean;
  status: 'terminated' | 'truncated' | 'error';
  success: boolean;
  reward: number;
  durationMs: number;
  costUsd: number;
  tokens: number;
  steps: number;
  tags: string[];
  firstErrorStep?: number;
}

export interface RolloutFacets {
  generations: number[];
  families: string[];
  users: string[];
  tags: string[];
  /** Lowest and highest total reward in the run, so every window of rows draws its bars on one scale. */
  rewardRange?: { lo: number; hi: number };
}

export interface RolloutTable {
  runDir: string;
  runName: string;
  /** Rows matching the filter, before paging. */
  total: number;
  offset: number;
  rows: RolloutRow[];
  /** Values present in the whole run, for filter pickers. */
  facets: RolloutFacets;
  /** Rollouts started and not finished yet (not rows until they finish). */
  running: number;
}

/** A `coevolve eval` result as stored (read with the versioned schema); null when the run has none. */
export interface EvalView {
  runDir: string;
  result: EvalResult | null;
  /** Why a stored result could not be read (another version, a malformed file). */
  problem?: string;
}

export interface SearchHit {
  row: RolloutRow;
  /** First matching step, and how many steps of the rollout match. */
  stepId: number;
  source: string;
  snippet: string;
  matches: number;
}

export interface SearchResult {
  runDir: string;
  query: string;
  /** Rollouts with a match (all of them, even past the limit). */
  total: number;
  hits: SearchHit[];
  /** Rollouts whose transcripts were searched. */
  searched: number;
}

/** One run's share of a dataset answer. */
export interface DatasetRunSummary {
  runDir: string;
  runName: string;
  /** Curated targets, and how many pass the filters. */
  curated: number;
  matching: number;
  accepted: number;
  problem?: string;
}

/** Curated items across runs, with the filter choices and the `coevolve export` arguments of the filters. */
export interface DatasetList extends DatasetPage {
  runs: DatasetRunSummary[];
  /** In a bundle: what it holds (only what its export selection took; nothing rejected, no hint plays). */
  bundleNote?: string;
}

export interface RequestResults {
  'rollout/get': RolloutView;
  'dashboard/get': DashboardView;
  'runs/list': RunChoice[];
  'runs/page': RunsWindow;
  'rollouts/table': RolloutTable;
  'rollouts/search': SearchResult;
  'eval/get': EvalView;
  'dataset/list': DatasetList;
  'curation/apply': { target: { kind: 'rollout' | 'environment'; id: string }; verdict?: 'accepted' | 'rejected'; labels: string[]; comments: number };
  'spec/get': SpecView;
}

// Envelopes.
export const webviewMessageSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('ready') }),
  z.strictObject({ kind: z.literal('request'), id: z.number().int().min(0), method: z.string().max(64), params: z.unknown() }),
  z.strictObject({ kind: z.literal('command'), method: z.string().max(64), params: z.unknown() }),
]);
export type WebviewMessage = z.infer<typeof webviewMessageSchema>;

// A plain union: the two response shapes share the discriminator value "response".
export const hostMessageSchema = z.union([
  z.strictObject({ kind: z.literal('response'), id: z.number().int().min(0), ok: z.literal(true), result: z.unknown() }),
  z.strictObject({ kind: z.literal('response'), id: z.number().int().min(0), ok: z.literal(false), error: z.string() }),
  z.strictObject({ kind: z.literal('notification'), method: z.string().max(64), params: z.unknown() }),
]);
export type HostMessage = z.infer<typeof hostMessageSchema>;

export type ParsedWebviewMessage =
  | { kind: 'ready' }
  | { kind: 'request'; id: number; method: RequestMethod; params: unknown }
  | { kind: 'command'; method: CommandMethod; params: unknown };

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

/** Validates a host message in the webview (envelope, and notification params). */
export function parseHostMessage(raw: unknown): HostMessage | undefined {
  const env = hostMessageSchema.safeParse(raw);
  if (!env.success) return undefined;
  const m = env.data;
  if (m.kind === 'notification') {
    const schema = Object.hasOwn(notificationParams, m.method) ? notificationParams[m.method as NotificationMethod] : undefined;
    if (!schema || !schema.safeParse(m.params).success) return undefined;
  }
  return m;
}

/** The state a panel keeps with `setState`, which the serializer gets back after a reload. */
export const rolloutPanelStateSchema = rolloutRefSchema.extend({ step: z.number().int().min(0).optional(), tab: z.string().max(32).optional() });
export type RolloutPanelState = z.infer<typeof rolloutPanelStateSchema>;
export const dashboardPanelStateSchema = z.strictObject({ runDir: z.string().min(1).max(4096), compareRunDir: z.string().max(4096).optional(), tab: z.string().max(32).optional() });
export type DashboardPanelState = z.infer<typeof dashboardPanelStateSchema>;
