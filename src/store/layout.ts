import { join } from 'node:path';

/** Paths inside a run directory (format v1, see ARCHITECTURE.md). One place, so writer and readers agree. */
export const runLayout = {
  manifest: (dir: string) => join(dir, 'manifest.json'),
  events: (dir: string) => join(dir, 'events.jsonl'),
  curation: (dir: string) => join(dir, 'curation.jsonl'),
  lock: (dir: string) => join(dir, 'lock'),
  generationFolder: (generation: number) => `g${String(generation).padStart(4, '0')}`,
  rollout: (dir: string, generation: number, rolloutId: string) => join(dir, 'rollouts', runLayout.generationFolder(generation), `${safeName(rolloutId)}.json`),
  generationMetrics: (dir: string, generation: number) => join(dir, 'generations', `${runLayout.generationFolder(generation)}.json`),
  environment: (dir: string, id: string) => join(dir, 'environments', `${safeName(id)}.json`),
  user: (dir: string, id: string) => join(dir, 'users', `${safeName(id)}.json`),
  agent: (dir: string, id: string) => join(dir, 'agents', `${safeName(id)}.json`),
  artifact: (dir: string, rel: string) => join(dir, 'artifacts', rel),
};

/** Ids are already restricted by the schema; this guards against anything else reaching the file system. */
function safeName(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]/g, '_');
}
