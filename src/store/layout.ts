import { join } from 'node:path';
import { generationFolder, runRecordPath } from './runPaths.js';

/**
 * Paths inside a run directory (format v1, see ARCHITECTURE.md). One place, so writer and readers agree; every id
 * and generation is checked by runPaths.ts (an unsafe one throws RunPathError, it is never rewritten).
 */
export const runLayout = {
  manifest: (dir: string) => runRecordPath(dir, { kind: 'manifest' }),
  events: (dir: string) => runRecordPath(dir, { kind: 'events' }),
  curation: (dir: string) => runRecordPath(dir, { kind: 'curation' }),
  lock: (dir: string) => runRecordPath(dir, { kind: 'lock' }),
  generationFolder,
  rollout: (dir: string, generation: number, rolloutId: string) => runRecordPath(dir, { kind: 'rollout', generation, id: rolloutId }),
  rolloutTokens: (dir: string, generation: number, rolloutId: string) => runRecordPath(dir, { kind: 'rolloutTokens', generation, id: rolloutId }),
  generationMetrics: (dir: string, generation: number) => runRecordPath(dir, { kind: 'generation', generation }),
  environment: (dir: string, id: string) => runRecordPath(dir, { kind: 'environment', id }),
  user: (dir: string, id: string) => runRecordPath(dir, { kind: 'user', id }),
  agent: (dir: string, id: string) => runRecordPath(dir, { kind: 'agent', id }),
  /** Artifacts are named by the engine (archive snapshots, hook output), not by records: kept inside artifacts/. */
  artifact: (dir: string, rel: string) => join(dir, 'artifacts', ...artifactParts(rel)),
};

function artifactParts(rel: string): string[] {
  const parts = rel.split(/[\\/]/);
  if (rel.startsWith('/') || parts.some((p) => p === '..' || p === '')) throw new Error(`artifact path "${rel}" must be relative and stay inside artifacts/`);
  return parts;
}
