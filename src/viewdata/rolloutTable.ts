// The flat rollout table of a run: every finished rollout across generations as one row, filtered and sorted.
// Pure over rows (no file access), so `coevolve view`, the editor and a static bundle's page all answer a table
// query with this same code. Rows come from the index's summaries (events.jsonl) and environment facts.
import type { RolloutSummary } from '../core/rollout/trajectory.js';
import type { RolloutFacets, RolloutFilter, RolloutRow, RolloutSortKey, RolloutTableQuery } from '../webview/protocol.js';

export function rolloutRow(s: RolloutSummary, env: { family: string; difficulty: number } | undefined): RolloutRow {
  return {
    id: s.id, generation: s.generation, pairId: s.pairId, envId: s.envId, userId: s.userId,
    family: env?.family ?? '', difficulty: env?.difficulty ?? null, trial: s.trial, hint: s.hint, status: s.status,
    success: s.success, reward: s.reward, durationMs: s.durationMs, costUsd: s.costUsd, tokens: s.tokens, steps: s.steps,
    tags: s.tags, ...(s.firstErrorStep !== undefined ? { firstErrorStep: s.firstErrorStep } : {}),
  };
}

export function rowPasses(r: RolloutRow, f: RolloutFilter | undefined): boolean {
  if (!f) return true;
  if (f.generations?.length && !f.generations.includes(r.generation)) return false;
  if (f.minReward !== undefined && !(r.reward >= f.minReward)) return false;
  if (f.maxReward !== undefined && !(r.reward <= f.maxReward)) return false;
  if (f.statuses?.length && !f.statuses.includes(r.status)) return false;
  if (f.outcome && (f.outcome === 'passed') !== r.success) return false;
  if (f.families?.length && !f.families.includes(r.family)) return false;
  if (f.users?.length && !f.users.includes(r.userId)) return false;
  if (f.tags?.length && !f.tags.some((t) => r.tags.includes(t))) return false;
  if (f.hint !== undefined && f.hint !== r.hint) return false;
  if (f.pairId && f.pairId !== r.pairId) return false;
  if (f.envIds?.length && !f.envIds.includes(r.envId)) return false;
  return true;
}

/** Ascending comparator of a sort key; ties fall back to (generation, id) so pages are stable. */
function comparator(key: RolloutSortKey): (a: RolloutRow, b: RolloutRow) => number {
  const base = (a: RolloutRow, b: RolloutRow): number => a.generation - b.generation || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  if (key === 'generation') return base;
  return (a, b) => {
    const x = a[key] ?? -Infinity;
    const y = b[key] ?? -Infinity;
    const c = typeof x === 'string' && typeof y === 'string' ? x.localeCompare(y) : Number(x) - Number(y);
    return c || base(a, b);
  };
}

export function facetsOf(rows: readonly RolloutRow[]): RolloutFacets {
  const gens = new Set<number>();
  const families = new Set<string>();
  const users = new Set<string>();
  const tags = new Set<string>();
  for (const r of rows) {
    gens.add(r.generation);
    if (r.family) families.add(r.family);
    users.add(r.userId);
    for (const t of r.tags) tags.add(t);
  }
  return { generations: [...gens].sort((a, b) => a - b), families: [...families].sort(), users: [...users].sort(), tags: [...tags].sort() };
}

export interface TablePage {
  total: number;
  offset: number;
  rows: RolloutRow[];
}

/** Filters, sorts and pages rows (the default page is 200 rows, sorted by generation then id). */
export function queryRolloutTable(rows: readonly RolloutRow[], q: Omit<RolloutTableQuery, 'runDir'>): TablePage {
  const matching = rows.filter((r) => rowPasses(r, q.filter));
  const sort = q.sort ?? { key: 'generation', dir: 'asc' };
  const cmp = comparator(sort.key);
  matching.sort(sort.dir === 'asc' ? cmp : (a, b) => -cmp(a, b));
  const offset = Math.min(q.offset ?? 0, matching.length);
  const limit = q.limit ?? 200;
  return { total: matching.length, offset, rows: matching.slice(offset, offset + limit) };
}
