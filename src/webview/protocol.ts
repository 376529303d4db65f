// The one host↔webview message protocol. Every message is an envelope validated where it arrives: the host checks
// what a webview sends with the zod schemas of protocolSchemas.ts (a webview renders model-written text), the webview
// checks the host's envelopes with hostMessage.ts. Descriptors are keyed `scope/verb`: requests (webview asks, host
// answers with a response), commands (webview asks the host to act; no answer) and notifications (host tells the
// webview something changed).
// Shared by the extension host bundle and the browser bundles: types and plain values only. The schemas are imported
// as types, so a page bundle carries no zod.
import type { z } from 'zod';
import type { GenerationMetrics } from '../core/metrics/generationMetrics.js';
import type { MoveAim } from '../core/metrics/aimCheck.js';
import type { EvalResult } from '../core/metrics/metricsSchema.js';
import type { RolloutRecord, RolloutSummary } from '../core/rollout/trajectory.js';
import type { ChildAim } from '../store/runReader.js';
export type { ChildAim, MoveAim };
import type { DatasetPage } from '../viewdata/datasetItems.js';
import type {
  commandParams, dashboardPanelStateSchema, datasetFiltersSchema, hostMessageSchema, notificationParams, requestParams, rolloutFilterSchema,
  rolloutPanelStateSchema, rolloutRefSchema, rolloutSearchSchema, rolloutTableQuerySchema, webviewMessageSchema,
} from './protocolSchemas.js';

export const rolloutSortKeys = ['generation', 'reward', 'durationMs', 'costUsd', 'tokens', 'steps', 'family', 'userId', 'envId', 'status', 'trial'] as const;
export type RolloutRef = z.infer<typeof rolloutRefSchema>;
export type RolloutFilter = z.infer<typeof rolloutFilterSchema>;
export type RolloutSortKey = (typeof rolloutSortKeys)[number];
export type RolloutTableQuery = z.infer<typeof rolloutTableQuerySchema>;
export type RolloutSearchQuery = z.infer<typeof rolloutSearchSchema>;
export type DatasetFilterParams = z.infer<typeof datasetFiltersSchema>;
export type RequestMethod = keyof typeof requestParams;
export type CommandMethod = keyof typeof commandParams;
export type NotificationMethod = keyof typeof notificationParams;
export type RequestParamsOf<M extends RequestMethod> = z.infer<(typeof requestParams)[M]>;
export type CommandParamsOf<M extends CommandMethod> = z.infer<(typeof commandParams)[M]>;
export type NotificationParamsOf<M extends NotificationMethod> = z.infer<(typeof notificationParams)[M]>;
export type WebviewMessage = z.infer<typeof webviewMessageSchema>;
export type HostMessage = z.infer<typeof hostMessageSchema>;
export type RolloutPanelState = z.infer<typeof rolloutPanelStateSchema>;
export type DashboardPanelState = z.infer<typeof dashboardPanelStateSchema>;

export type ParsedWebviewMessage =
  | { kind: 'ready' }
  | { kind: 'request'; id: number; method: RequestMethod; params: unknown }
  | { kind: 'command'; method: CommandMethod; params: unknown };

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
  /**
   * An operator took it out of the instruction (lineage `user:hold-back:<fact>`): the task's author stated it, this
   * environment's user holds it back until asked.
   */
  heldBack?: true;
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
  /** The editor tab's title ("g1 Log triage × Sam #2"): names.ts rolloutTabTitle. */
  tabTitle?: string;
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
  /** A child's planned prediction for the agent it was made for and its screening plays (runs from 2026-12-06 on). */
  aim?: ChildAim;
}

export interface RejectedChild {
  kind: 'environment' | 'user';
  id: string;
  parent: string;
  operator: string;
  reason: string;
  generation: number;
  aim?: ChildAim;
}

/**
 * A generation's stored metrics as a dashboard gets them: every figure, without the per-pair and per-node lists
 * (pairsDetail, lineage, archiveBand.pairs; about 25 KB of a 30 KB file) that no chart or table reads: the data
 * layer builds the lineage from them (DashboardView.lineage). A 20-generation run's dashboard/get was 515 KB.
 */
export type GenerationFigures = Omit<GenerationMetrics, 'pairsDetail' | 'lineage' | 'archiveBand'> & { archiveBand?: Omit<NonNullable<GenerationMetrics['archiveBand']>, 'pairs'> };

export interface RunOverview {
  runDir: string;
  name: string;
  runId: string;
  status: string;
  startedAt: string;
  k: number;
  band: { low: number; high: number };
  roles: Record<string, string>;
  generations: GenerationFigures[];
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
  /** The steering's aim by move over the run (as `coevolve report` prints it; empty for runs without predictions). */
  aimByMove?: MoveAim[];
  compare: RunOverview | null;
  /** Why the compared run is not shown (its folder is gone), when one was asked for: the run itself still is. */
  compareGone?: string;
}

/** A run as a picker of runs names it: no metrics read. */
export type RunName = Pick<RunChoice, 'runDir' | 'label' | 'description' | 'name' | 'runId' | 'startedAt' | 'status'>;

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
  /** Index of that generation. */
  lastGeneration?: number;
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
  'runs/names': RunName[];
  'runs/page': RunsWindow;
  'rollouts/table': RolloutTable;
  'rollouts/search': SearchResult;
  'eval/get': EvalView;
  'dataset/list': DatasetList;
  'curation/apply': { target: { kind: 'rollout' | 'environment'; id: string }; verdict?: 'accepted' | 'rejected'; labels: string[]; comments: number };
  'spec/get': SpecView;
}
