import { existsSync } from 'node:fs';
import type { RunEvent } from '../core/ports/runStore.js';
import type { RolloutRecord } from '../core/rollout/trajectory.js';
import { runLayout } from '../store/layout.js';
import { readRollout, type RunIndex } from '../store/runReader.js';
import type { RolloutRef, RolloutView } from '../webview/protocol.js';
import type { RunResolver } from './runRegistry.js';
import { specView } from './specView.js';

/**
 * Everything the rollout viewer draws, read from the run directory: the rollout record (absent while the rollout
 * runs: its file is written when it finishes), its summary from the index, and both specs with their diffs.
 * The rollout must be one the run's index knows (finished, or started and in flight): an id from a message is
 * checked against the index before any file name is made from it.
 */
export function rolloutView(runs: RunResolver, ref: RolloutRef): RolloutView {
  const run = runs.get(ref.runDir).run;
  const summary = run.rollouts.get(ref.rolloutId) ?? null;
  const gen = run.generations.find((g) => g.index === ref.generation);
  const inFlight = gen?.inFlight.includes(ref.rolloutId) ?? false;
  if ((summary === null || summary.generation !== ref.generation) && !inFlight) {
    throw new Error(`rollout ${ref.rolloutId} is not in generation ${ref.generation} of run ${run.manifest.name}`);
  }
  const filePath = runLayout.rollout(run.dir, ref.generation, ref.rolloutId);
  const record: RolloutRecord | null = existsSync(filePath) ? readRollout(run.dir, { generation: ref.generation, id: ref.rolloutId }) : null;
  const running = record === null && inFlight;
  if (!record && !running) throw new Error(`rollout ${ref.rolloutId} of generation ${ref.generation} has no file in run ${run.manifest.name}`);
  const started = startedEvent(run, ref.rolloutId);
  const pair = gen?.pairs.find((p) => p.pairId === (record?.pairId ?? started?.pairId));
  const envId = record?.envId ?? pair?.envId;
  const userId = record?.userId ?? pair?.userId;
  return {
    ref,
    record,
    summary,
    running,
    filePath: runs.displayPath(run.dir, filePath),
    env: envId ? specView(run, 'environment', envId) : null,
    user: userId ? specView(run, 'user', userId) : null,
    runName: run.manifest.name,
  };
}

function startedEvent(run: RunIndex, rolloutId: string): Extract<RunEvent, { type: 'rollout.started' }> | undefined {
  return run.events.find((e): e is Extract<RunEvent, { type: 'rollout.started' }> => e.type === 'rollout.started' && e.rolloutId === rolloutId);
}
