import { readdirSync } from 'node:fs';
import type { RunManifest } from '../core/ports/runStore.js';
import type { RolloutRecord, RolloutSummary } from '../core/rollout/trajectory.js';
import type { EnvironmentSpec } from '../core/spec/environment.js';
import type { UserProfile } from '../core/spec/user.js';
import { readCuration, type CurationRead } from '../store/curation.js';
import { readRunJson, RunFileError, runFileExists, runFileLimits } from '../store/runFiles.js';
import { isSafeId } from '../store/runPaths.js';
import { checkSpecRecord, formatRunProblem, openRun, readRollout, readRolloutTokens, salvageRollouts, specSchemas } from '../store/runReader.js';
import type { TokenTurn } from '../core/rollout/tokenSidecar.js';

/** What an export reads of a run directory (format v1, ARCHITECTURE.md). Rollout files are opened one at a time. */
export interface RunSource {
  dir: string;
  manifest: RunManifest;
  environments: Map<string, EnvironmentSpec>;
  users: Map<string, UserProfile>;
  /** Finished rollouts from the event log (and salvaged files), in generation order then id, so exports are reproducible. */
  rollouts: RolloutSummary[];
  curation: CurationRead;
  readRollout(ref: { generation: number; id: string }): RolloutRecord;
  /** Damaged lines and files of the run: what was skipped or rebuilt, "file:line: ...". */
  problems: string[];
  /** The token sidecar of a rollout, undefined when it has none. */
  readRolloutTokens(ref: { generation: number; id: string }): TokenTurn[] | undefined;
}

export function openRunSource(dir: string): RunSource {
  const index = openRun(dir);
  if (index.status !== 'running') salvageRollouts(index);
  const problems = index.problems.map(formatRunProblem);
  const rollouts = [...index.rollouts.values()].sort((a, b) => a.generation - b.generation || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return {
    dir,
    manifest: index.manifest,
    environments: readSpecFolder<EnvironmentSpec>(dir, 'environment', problems),
    users: readSpecFolder<UserProfile>(dir, 'user', problems),
    rollouts,
    curation: readCuration(dir),
    readRollout: (ref) => readRollout(dir, ref),
    problems,
    readRolloutTokens: (ref) => readRolloutTokens(dir, ref),
  };
}

/**
 * Every spec version the run wrote (the event log names only children; seeds are files too), each checked
 * against its schema and its file name before its id or file paths are used. Bad files are problems, skipped.
 */
function readSpecFolder<T extends { id: string }>(dir: string, kind: 'environment' | 'user', problems: string[]): Map<string, T> {
  const out = new Map<string, T>();
  const folder = `${kind}s`;
  if (!runFileExists(dir, folder)) return out;
  for (const name of readdirSync(`${dir}/${folder}`).sort()) {
    if (!name.endsWith('.json') || name.includes('.tmp-')) continue;
    const rel = `${folder}/${name}`;
    const id = name.slice(0, -'.json'.length);
    try {
      if (!isSafeId(id)) throw new RunFileError(dir, rel, `not named after a ${kind} id`);
      const raw = readRunJson(dir, rel, runFileLimits.spec);
      out.set(id, checkSpecRecord(dir, rel, kind, raw, specSchemas[kind] as never, id) as T);
    } catch (err) {
      if (!(err instanceof RunFileError)) throw err;
      problems.push(`${err.short}; skipped`);
    }
  }
  return out;
}
