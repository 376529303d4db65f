import type { EnvironmentSpec } from '../core/spec/environment.js';

/**
 * The seed an environment descends from. Splits are assigned per root so that a child and its parent (which share
 * most of their content) never land on both sides of a train/test boundary. A parent missing from the run (an
 * imported seed, a pruned archive) ends the walk: the oldest known ancestor is the root. Cycles are cut defensively.
 */
export function lineageRoot(envId: string, environments: ReadonlyMap<string, Pick<EnvironmentSpec, 'lineage'>>, memo?: Map<string, string>): string {
  const cached = memo?.get(envId);
  if (cached) return cached;
  const seen = new Set<string>();
  const path: string[] = [];
  let current = envId;
  for (;;) {
    path.push(current);
    seen.add(current);
    const hit = memo?.get(current);
    if (hit) {
      current = hit;
      break;
    }
    const parent = environments.get(current)?.lineage?.parent;
    if (!parent || seen.has(parent) || !environments.has(parent)) break;
    current = parent;
  }
  for (const id of path) memo?.set(id, current);
  return current;
}
