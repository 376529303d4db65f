import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildKind, PairPlan, RunEvent, RunManifest } from '../core/ports/runStore.js';
import { runFormatVersion } from '../core/ports/runStore.js';
import type { RolloutRecord, RolloutSummary } from '../core/rollout/trajectory.js';
import type { AgentConfig } from '../core/spec/agent.js';
import type { EnvironmentSpec } from '../core/spec/environment.js';
import type { UserProfile } from '../core/spec/user.js';
import { readEventLog } from './eventLog.js';
import { runLayout } from './layout.js';

export class RunFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RunFormatError';
  }
}

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
}

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
}

export function readManifest(dir: string): RunManifest {
  const path = runLayout.manifest(dir);
  if (!existsSync(path)) throw new RunFormatError(`${dir} is not a Coevolve run directory (no manifest.json)`);
  let manifest: RunManifest;
  try {
    manifest = JSON.parse(readFileSync(path, 'utf8')) as RunManifest;
  } catch (err) {
    throw new RunFormatError(`${path}: manifest is not valid JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  if (typeof manifest.formatVersion !== 'number') throw new RunFormatError(`${path}: manifest has no formatVersion`);
  if (manifest.formatVersion > runFormatVersion) {
    throw new RunFormatError(
      `${dir} was written in run format v${manifest.formatVersion}, newer than this Coevolve reads (v${runFormatVersion}); upgrade Coevolve to open it`,
    );
  }
  return manifest;
}

export function openRun(dir: string): RunIndex {
  const manifest = readManifest(dir);
  const { events, tornTailBytes } = readEventLog(runLayout.events(dir));
  return indexEvents(dir, manifest, events, tornTailBytes);
}

export function indexEvents(dir: string, manifest: RunManifest, events: RunEvent[], tornTailBytes = 0): RunIndex {
  const generations: GenerationIndex[] = [];
  const rollouts = new Map<string, RolloutSummary>();
  const specs = new Map<string, SpecIndexEntry>();
  const rejections: RunIndex['rejections'] = [];
  const agentUpdates: RunIndex['agentUpdates'] = [];
  const started = new Map<string, number>();
  let finished: RunStatus | undefined;
  const gen = (i: number): GenerationIndex => {
    let g = generations[i];
    if (!g) {
      g = { index: i, agentId: '', pairs: [], rollouts: [], inFlight: [], finished: false };
      generations[i] = g;
    }
    return g;
  };
  for (const e of events) {
    switch (e.type) {
      case 'generation.started': {
        const g = gen(e.generation);
        g.agentId = e.agentId;
        g.pairs = e.pairs;
        break;
      }
      case 'rollout.started':
        started.set(e.rolloutId, e.generation);
        break;
      case 'rollout.finished': {
        if (rollouts.has(e.summary.id)) break; // a resumed run never replays a finished rollout; be safe anyway
        rollouts.set(e.summary.id, e.summary);
        gen(e.summary.generation).rollouts.push(e.summary);
        started.delete(e.summary.id);
        break;
      }
      case 'generation.finished':
        gen(e.generation).finished = true;
        break;
      case 'spec.added':
        specs.set(e.id, { kind: e.kind, id: e.id, parent: e.parent, operator: e.operator, generation: e.generation });
        break;
      case 'spec.retired': {
        const s = specs.get(e.id);
        if (s) s.retired = e.reason;
        break;
      }
      case 'child.rejected':
        rejections.push(e);
        break;
      case 'agent.updated':
        agentUpdates.push(e);
        break;
      case 'run.finished':
        finished = e.status;
        break;
      case 'run.resumed':
        finished = undefined;
        break;
      default:
        break;
    }
  }
  for (const [id, g] of started) gen(g).inFlight.push(id);
  const status: RunStatus = finished ?? (isRunAlive(dir) ? 'running' : 'interrupted');
  return { dir, manifest, events, status, generations: generations.filter(Boolean), rollouts, specs, rejections, agentUpdates, tornTailBytes };
}

/** A run is alive when its lock names a live process. */
export function isRunAlive(dir: string): boolean {
  const lock = runLayout.lock(dir);
  if (!existsSync(lock)) return false;
  const pid = Number(readFileSync(lock, 'utf8').trim());
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readJson<T>(path: string, what: string): T {
  if (!existsSync(path)) throw new RunFormatError(`${what} not found: ${path}`);
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

export function readRollout(dir: string, ref: { generation: number; id: string }): RolloutRecord {
  return readJson(runLayout.rollout(dir, ref.generation, ref.id), `rollout ${ref.id}`);
}

export function readGenerationMetrics<T = unknown>(dir: string, generation: number): T | undefined {
  const p = runLayout.generationMetrics(dir, generation);
  return existsSync(p) ? (JSON.parse(readFileSync(p, 'utf8')) as T) : undefined;
}

export function readEnvironment(dir: string, id: string): EnvironmentSpec {
  return readJson(runLayout.environment(dir, id), `environment ${id}`);
}

export function readUser(dir: string, id: string): UserProfile {
  return readJson(runLayout.user(dir, id), `user ${id}`);
}

export function readAgent(dir: string, id: string): AgentConfig {
  return readJson(runLayout.agent(dir, id), `agent ${id}`);
}

/** Run directories directly under an output folder, newest first. */
export function listRuns(outputDir: string): { dir: string; manifest: RunManifest }[] {
  if (!existsSync(outputDir)) return [];
  const out: { dir: string; manifest: RunManifest }[] = [];
  for (const name of readdirSync(outputDir)) {
    const dir = join(outputDir, name);
    if (!existsSync(runLayout.manifest(dir))) continue;
    try {
      out.push({ dir, manifest: readManifest(dir) });
    } catch {
      // a newer or broken run is listed by the caller through openRun's error, not here
    }
  }
  return out.sort((a, b) => b.manifest.startedAt.localeCompare(a.manifest.startedAt));
}
