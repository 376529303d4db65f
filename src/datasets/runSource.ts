import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { RunManifest } from '../core/ports/runStore.js';
import type { RolloutRecord, RolloutSummary } from '../core/rollout/trajectory.js';
import type { EnvironmentSpec } from '../core/spec/environment.js';
import type { UserProfile } from '../core/spec/user.js';
import { readCuration, type CurationRead } from '../store/curation.js';
import { runLayout } from '../store/layout.js';
import { openRun, readRollout } from '../store/runReader.js';

/** What an export reads of a run directory (format v1, ARCHITECTURE.md). Rollout files are opened one at a time. */
export interface RunSource {
  dir: string;
  manifest: RunManifest;
  environments: Map<string, EnvironmentSpec>;
  users: Map<string, UserProfile>;
  /** Finished rollouts from the event log, in generation order then id, so exports are reproducible. */
  rollouts: RolloutSummary[];
  curation: CurationRead;
  readRollout(ref: { generation: number; id: string }): RolloutRecord;
}

export function openRunSource(dir: string): RunSource {
  const index = openRun(dir);
  const rollouts = [...index.rollouts.values()].sort((a, b) => a.generation - b.generation || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return {
    dir,
    manifest: index.manifest,
    environments: readSpecFolder<EnvironmentSpec>(dirname(runLayout.environment(dir, 'x'))),
    users: readSpecFolder<UserProfile>(dirname(runLayout.user(dir, 'x'))),
    rollouts,
    curation: readCuration(dir),
    readRollout: (ref) => readRollout(dir, ref),
  };
}

/** Every spec version the run wrote (the event log names only children; seeds are files too). */
function readSpecFolder<T extends { id: string }>(folder: string): Map<string, T> {
  const out = new Map<string, T>();
  if (!existsSync(folder)) return out;
  for (const name of readdirSync(folder).sort()) {
    if (!name.endsWith('.json')) continue;
    const spec = JSON.parse(readFileSync(`${folder}/${name}`, 'utf8')) as T;
    out.set(spec.id, spec);
  }
  return out;
}
