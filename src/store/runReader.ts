import { existsSync, lstatSync, readdirSync } from 'node:fs';
import { join, sep } from 'node:path';
import { parseGenerationMetrics } from '../core/metrics/metricsSchema.js';
import type { ChildKind, PairPlan, RunEvent, RunManifest } from '../core/ports/runStore.js';
import { runFormatVersion } from '../core/ports/runStore.js';
import type { RolloutRecord, RolloutSummary } from '../core/rollout/trajectory.js';
import { decodeTokenSidecar, type TokenTurn } from '../core/rollout/tokenSidecar.js';
import { agentConfigSchema, type AgentConfig } from '../core/spec/agent.js';
import { environmentSpecSchema, type EnvironmentSpec } from '../core/spec/environment.js';
import { userProfileSchema, type UserProfile } from '../core/spec/user.js';
import { checkedEvents, readEventLog } from './eventLog.js';
import { runLayout } from './layout.js';
import { checkManifest, checkRolloutRecord, checkRunEvent } from './records.js';
import { readRunJson, readRunText, RunFileError, runFileExists, runFileLimits, RunFormatError } from './runFiles.js';
import { runRecordRelPath, type RunRecordRef } from './runPaths.js';

export { RunFormatError } from './runFiles.js';

export type RunStatus = 'running' | 'completed' | 'stopped' | 'failed' | 'interrupted';

export interface GenerationIndex {
  index: number;
  agentId: string;
  pairs: PairPlan[];
  rollouts: RolloutSummary[];
  /** Rollouts announced as started but not finished (running now, or lost to a crash and replayed on resume). */
  inFlight: string[];
  finished: boolean;
}

export interface SpecIndexEntry {
  kind: ChildKind;
  id: string;
  parent: string | null;
  operator: string | null;
  generation: number;
  retired?: string;
  /** A child's aim: its planned prediction and its screening plays, as its spec.added event recorded them. */
  aim?: ChildAim;
}

/** What the fitted model predicted for a child when it was planned, and what its screening plays then showed. */
export interface ChildAim {
  predicted: number;
  screening?: { successes: number; trials: number };
}

/** The aim a child event carries (runs written before 2026-12-06 have no prediction, so no aim). */
export function childAim(e: { predicted?: number; validation?: { screening?: { successes: number; trials: number } } }): ChildAim | undefined {
  if (e.predicted === undefined) return undefined;
  const s = e.validation?.screening;
  return { predicted: e.predicted, ...(s && s.trials > 0 ? { screening: { successes: s.successes, trials: s.trials } } : {}) };
}

/** Something in the run directory that could not be used, and what was done about it. */
export interface RunProblem {
  /** Relative to the run directory: "events.jsonl", "rollouts/g0001/x.json". */
  file: string;
  line?: number;
  /** What was wrong and what was skipped or rebuilt. */
  message: string;
}

export const formatRunProblem = (p: RunProblem): string => `${p.file}${p.line !== undefined ? `:${p.line}` : ''}: ${p.message}`;

/** Everything a viewer needs to draw a run, built from events.jsonl alone (no rollout file is opened). */
export interface RunIndex {
  dir: string;
  manifest: RunManifest;
  events: RunEvent[];
  status: RunStatus;
  generations: GenerationIndex[];
  rollouts: Map<string, RolloutSummary>;
  specs: Map<string, SpecIndexEntry>;
  rejections: Extract<RunEvent, { type: 'child.rejected' }>[];
  agentUpdates: Extract<RunEvent, { type: 'agent.updated' }>[];
  tornTailBytes: number;
  /** Lines and files skipped or rebuilt, in the order found; empty for an undamaged run. */
  problems: RunProblem[];
}

export function readManifest(dir: string): RunManifest {
  const rel = runRecordRelPath({ kind: 'manifest' });
  if (!existsSync(runLayout.manifest(dir))) throw new RunFormatError(`${dir} is not a Coevolve run directory (no manifest.json)`);
  const raw = readRunJson(dir, rel, runFileLimits.manifest);
  const version = typeof raw === 'object' && raw !== null ? (raw as { formatVersion?: unknown }).formatVersion : undefined;
  if (typeof version !== 'number') throw new RunFileError(dir, rel, 'manifest has no formatVersion');
  if (version > runFormatVersion) {
    throw new RunFormatError(`${dir} was written in run format v${version}, newer than this Coevolve reads (v${runFormatVersion}); upgrade Coevolve to open it`);
  }
  const checked = checkManifest(raw);
  if ('problem' in checked) throw new RunFileError(dir, rel, `not a valid manifest (${checked.problem})`);
  return checked.manifest;
}

export function openRun(dir: string): RunIndex {
  const manifest = readManifest(dir);
  const { events, tornTailBytes, badLines } = readEventLog(runLayout.events(dir));
  const problems: RunProblem[] = badLines.map((b) => ({ file: 'events.jsonl', line: b.line, message: b.error }));
  return indexEvents(dir, manifest, events, tornTailBytes, problems);
}

/**
 * The index of a list of events. Events that did not come through readEventLog (a live tail) are checked here,
 * so a `null` or a malformed event is a problem in the index, never a crash of the viewer.
 */
export function indexEvents(dir: string, manifest: RunManifest, events: RunEvent[], tornTailBytes = 0, problems: RunProblem[] = []): RunIndex {
  const state: IndexState = { generations: [], rollouts: new Map(), specs: new Map(), rejections: [], agentUpdates: [], started: new Map(), finished: undefined };
  const valid: RunEvent[] = [];
  for (const [i, e] of events.entries()) {
    if (!isValidEvent(e, i, problems)) continue;
    valid.push(e);
    indexEvent(state, e);
  }
  const { generations, rollouts, specs, rejections, agentUpdates, started, finished } = state;
  for (const [id, g] of started) generationAt(generations, g).inFlight.push(id);
  const status: RunStatus = finished ?? (isRunAlive(dir) ? 'running' : 'interrupted');
  return { dir, manifest, events: valid, status, generations: generations.filter(Boolean), rollouts, specs, rejections, agentUpdates, tornTailBytes, problems };
}

/** The index while indexEvents builds it: what the events said so far. */
interface IndexState {
  /** By generation number; a gap stays a hole until the end (then filtered out). */
  generations: GenerationIndex[];
  rollouts: Map<string, RolloutSummary>;
  specs: Map<string, SpecIndexEntry>;
  rejections: RunIndex['rejections'];
  agentUpdates: RunIndex['agentUpdates'];
  /** Rollouts started and not (yet) finished, with their generation. */
  started: Map<string, number>;
  /** The status of the last run.finished, undefined when none or a run.resumed came after it. */
  finished: RunStatus | undefined;
}

/**
 * Whether event i can be indexed. An event readEventLog did not check is checked here; a bad one is listed in
 * problems and skipped.
 */
function isValidEvent(e: RunEvent, i: number, problems: RunProblem[]): boolean {
  if (typeof e === 'object' && e !== null && checkedEvents.has(e)) return true;
  const checked = checkRunEvent(e);
  if ('problem' in checked) {
    problems.push({ file: 'events.jsonl', message: `event ${i + 1} of the log: ${checked.problem}; skipped` });
    return false;
  }
  // A live tail indexes the same event objects again on every refresh: check each once.
  checkedEvents.add(e);
  return true;
}

/** The generation with index i, made empty when no event named it yet. */
function generationAt(generations: GenerationIndex[], i: number): GenerationIndex {
  let g = generations[i];
  if (!g) {
    g = { index: i, agentId: '', pairs: [], rollouts: [], inFlight: [], finished: false };
    generations[i] = g;
  }
  return g;
}

/** What one valid event adds to the index. */
function indexEvent(state: IndexState, e: RunEvent): void {
  const { generations, rollouts, specs } = state;
  switch (e.type) {
    case 'generation.started': {
      const g = generationAt(generations, e.generation);
      g.agentId = e.agentId;
      g.pairs = e.pairs;
      break;
    }
    case 'rollout.started':
      state.started.set(e.rolloutId, e.generation);
      break;
    case 'rollout.finished': {
      // A rollout played again (its file was damaged and resume replayed it): the later summary is the record.
      const before = rollouts.get(e.summary.id);
      if (before) generations[before.generation]!.rollouts = generations[before.generation]!.rollouts.filter((r) => r.id !== before.id);
      rollouts.set(e.summary.id, e.summary);
      generationAt(generations, e.summary.generation).rollouts.push(e.summary);
      state.started.delete(e.summary.id);
      break;
    }
    case 'generation.finished':
      generationAt(generations, e.generation).finished = true;
      break;
    case 'spec.added': {
      const aim = childAim(e);
      specs.set(e.id, { kind: e.kind, id: e.id, parent: e.parent, operator: e.operator, generation: e.generation, ...(aim ? { aim } : {}) });
      break;
    }
    case 'spec.retired': {
      const s = specs.get(e.id);
      if (s) s.retired = e.reason;
      break;
    }
    case 'child.rejected':
      state.rejections.push(e);
      break;
    case 'agent.updated':
      state.agentUpdates.push(e);
      break;
    case 'run.finished':
      state.finished = e.status;
      break;
    case 'run.resumed':
      state.finished = undefined;
      break;
    default:
      break;
  }
}

/** A run is alive when its lock names a live process. */
export function isRunAlive(dir: string): boolean {
  let text: string;
  try {
    if (!existsSync(runLayout.lock(dir))) return false;
    text = readRunText(dir, 'lock', 64);
  } catch {
    return false;
  }
  const pid = Number(text.trim());
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readRecordJson(dir: string, ref: RunRecordRef, what: string, max: number): { rel: string; raw: unknown } {
  const rel = runRecordRelPath(ref);
  if (!runFileExists(dir, rel)) throw new RunFormatError(`${what} not found: ${join(dir, rel)}`);
  return { rel, raw: readRunJson(dir, rel, max) };
}

/** A rollout file, checked against its schema and against the id and generation it is filed under. */
export function readRollout(dir: string, ref: { generation: number; id: string }): RolloutRecord {
  const { rel, raw } = readRecordJson(dir, { kind: 'rollout', generation: ref.generation, id: ref.id }, `rollout ${ref.id}`, runFileLimits.rollout);
  const checked = checkRolloutRecord(raw);
  if ('problem' in checked) throw new RunFileError(dir, rel, `not a valid rollout record (${checked.problem})`);
  const r = checked.record;
  if (r.id !== ref.id) throw new RunFileError(dir, rel, `holds rollout "${r.id}", not "${ref.id}"`);
  if (r.generation !== ref.generation) throw new RunFileError(dir, rel, `holds generation ${r.generation}, not ${ref.generation}`);
  return r;
}

/** A generation's metrics, checked against the metrics schema of its version; undefined when not written yet. */
/** The token data of a rollout's agent turns, from its sidecar; undefined when the rollout carries none. */
export function readRolloutTokens(dir: string, ref: { generation: number; id: string }): TokenTurn[] | undefined {
  const rel = runRecordRelPath({ kind: 'rolloutTokens', generation: ref.generation, id: ref.id });
  if (!runFileExists(dir, rel)) return undefined;
  return decodeTokenSidecar(readRunText(dir, rel, runFileLimits.rollout), join(dir, rel)).turns;
}

export function readGenerationMetrics<T = unknown>(dir: string, generation: number): T | undefined {
  const rel = runRecordRelPath({ kind: 'generation', generation });
  if (!runFileExists(dir, rel)) return undefined;
  const raw = readRunJson(dir, rel, runFileLimits.metrics);
  try {
    return parseGenerationMetrics(raw, 'metrics').metrics as T;
  } catch (err) {
    throw new RunFileError(dir, rel, `not valid generation metrics (${err instanceof Error ? err.message : String(err)})`);
  }
}

interface SpecSchema<T> {
  safeParse(v: unknown): { success: true; data: T } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } };
}

function readSpecRecord<T extends { id: string }>(dir: string, kind: 'environment' | 'user' | 'agent', id: string, schema: SpecSchema<T>): T {
  const { rel, raw } = readRecordJson(dir, { kind, id }, `${kind} ${id}`, runFileLimits.spec);
  return checkSpecRecord(dir, rel, kind, raw, schema, id);
}

/** A spec file of the run, checked against the spec schema and the id it is filed under. */
export function checkSpecRecord<T extends { id: string }>(dir: string, rel: string, kind: string, raw: unknown, schema: SpecSchema<T>, id?: string): T {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const i = parsed.error.issues[0]!;
    throw new RunFileError(dir, rel, `not a valid ${kind} record (${i.path.map(String).join('.') || '(root)'}: ${i.message})`);
  }
  if (id !== undefined && parsed.data.id !== id) throw new RunFileError(dir, rel, `holds ${kind} "${parsed.data.id}", not "${id}"`);
  return parsed.data;
}

export const specSchemas = { environment: environmentSpecSchema, user: userProfileSchema, agent: agentConfigSchema } as const;

export function readEnvironment(dir: string, id: string): EnvironmentSpec {
  return readSpecRecord(dir, 'environment', id, environmentSpecSchema as SpecSchema<EnvironmentSpec>);
}

export function readUser(dir: string, id: string): UserProfile {
  return readSpecRecord(dir, 'user', id, userProfileSchema as SpecSchema<UserProfile>);
}

export function readAgent(dir: string, id: string): AgentConfig {
  return readSpecRecord(dir, 'agent', id, agentConfigSchema as SpecSchema<AgentConfig>);
}

export { salvageRollouts } from './salvage.js';

/** Run directories directly under an output folder, newest first. */
export function listRuns(outputDir: string): { dir: string; manifest: RunManifest }[] {
  if (!existsSync(outputDir)) return [];
  const out: { dir: string; manifest: RunManifest }[] = [];
  const names = readdirSync(outputDir);
  for (const name of names) {
    const dir = join(outputDir, name);
    const manifest = listedManifest(dir);
    if (manifest) out.push({ dir, manifest });
  }
  forgetUnlisted(outputDir, new Set(names));
  return out.sort((a, b) => b.manifest.startedAt.localeCompare(a.manifest.startedAt));
}

/**
 * Manifests listRuns has read, by run directory, with the identity of the file read (inode, size, modification
 * time). The Runs tree lists the runs folders on every refresh, and a live run refreshes it every few hundred
 * milliseconds: each listing read and schema-checked every manifest again (200 runs, 200 reads a listing).
 */
const listedManifests = new Map<string, { key: string; manifest: RunManifest }>();

/** A run directory's manifest, read again only when its file changed; undefined when it has none or it is refused. */
function listedManifest(dir: string): RunManifest | undefined {
  let key: string | undefined;
  try {
    const st = lstatSync(runLayout.manifest(dir));
    // Anything but a plain file goes to readManifest every time, which refuses it as it always did.
    if (st.isFile()) key = `${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch {
    return undefined;
  }
  const known = listedManifests.get(dir);
  if (key !== undefined && known?.key === key) return known.manifest;
  listedManifests.delete(dir);
  try {
    const manifest = readManifest(dir);
    if (key !== undefined) listedManifests.set(dir, { key, manifest });
    return manifest;
  } catch {
    return undefined; // a newer or broken run is listed by the caller through openRun's error, not here
  }
}

/** Drops what is known of run directories of `outputDir` that its listing no longer names. */
function forgetUnlisted(outputDir: string, names: ReadonlySet<string>): void {
  const prefix = join(outputDir, sep);
  for (const dir of listedManifests.keys()) if (dir.startsWith(prefix) && !names.has(dir.slice(prefix.length))) listedManifests.delete(dir);
}
