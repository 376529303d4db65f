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

export function facetsOf(rows: readonly RolloutRow[]): RolloutFacets {
  const gens = new Set<number>();
  const families = new Set<string>();
  const users = new Set<string>();
  const tags = new Set<string>();
  let lo = Infinity;
  let hi = -Infinity;
  for (const r of rows) {
    if (Number.isFinite(r.reward)) {
      lo = Math.min(lo, r.reward);
      hi = Math.max(hi, r.reward);
    }
    gens.add(r.generation);
    if (r.family) families.add(r.family);
    users.add(r.userId);
    for (const t of r.tags) tags.add(t);
  }
  return { generations: [...gens].sort((a, b) => a - b), families: [...families].sort(), users: [...users].sort(), tags: [...tags].sort(), ...(lo <= hi ? { rewardRange: { lo, hi } } : {}) };
}

export interface TablePage {
  total: number;
  offset: number;
  rows: RolloutRow[];
}

/** Filters, sorts and pages rows (the default page is 200 rows, sorted by generation then id). One-off: a host that
 * answers many queries over the same rows keeps a RolloutTableIndex instead. */
export function queryRolloutTable(rows: readonly RolloutRow[], q: Omit<RolloutTableQuery, 'runDir'>): TablePage {
  return new RolloutTableIndex(rows).query(q);
}

const stringKeys = new Set<RolloutSortKey>(['family', 'userId', 'envId', 'status']);

/**
 * The rows of one run with everything a query needs computed once: the ascending order of each sort key (built the
 * first time the key is asked for, from one array of precomputed keys, never by re-reading records), and the facets.
 * A query then only walks one order and tests the filter: O(rows), no sort. Ascending order ties fall back to
 * (generation, id), so pages are stable; descending is the same order walked backwards.
 */
export class RolloutTableIndex {
  private readonly orders = new Map<RolloutSortKey, Uint32Array>();
  private facetCache: RolloutFacets | undefined;

  constructor(readonly rows: readonly RolloutRow[]) {}

  get facets(): RolloutFacets {
    return (this.facetCache ??= facetsOf(this.rows));
  }

  /** Row positions in ascending order of `key`. */
  order(key: RolloutSortKey): Uint32Array {
    let o = this.orders.get(key);
    if (o) return o;
    if (key === 'generation') {
      o = sortedPositions(this.rows.length, (i, j) => baseCompare(this.rows[i]!, this.rows[j]!));
    } else {
      const base = this.rank(this.order('generation'));
      const k = this.keyArray(key);
      o = sortedPositions(this.rows.length, (i, j) => k[i]! - k[j]! || base[i]! - base[j]!);
    }
    this.orders.set(key, o);
    return o;
  }

  /** rank[position] = index of that row in `order`. */
  private rank(order: Uint32Array): Uint32Array {
    const r = new Uint32Array(order.length);
    order.forEach((pos, i) => (r[pos] = i));
    return r;
  }

  /** One number per row to compare by: the value itself, or a string's rank among the column's distinct values. */
  private keyArray(key: RolloutSortKey): Float64Array {
    const out = new Float64Array(this.rows.length);
    if (stringKeys.has(key)) {
      const values = [...new Set(this.rows.map((r) => String(r[key])))].sort((a, b) => a.localeCompare(b));
      const rankOf = new Map(values.map((v, i) => [v, i]));
      this.rows.forEach((r, i) => (out[i] = rankOf.get(String(r[key])) ?? 0));
    } else {
      this.rows.forEach((r, i) => {
        const v = Number(r[key]);
        out[i] = Number.isNaN(v) ? -Infinity : v;
      });
    }
    return out;
  }

  query(q: Omit<RolloutTableQuery, 'runDir'>): TablePage {
    const sort = q.sort ?? { key: 'generation', dir: 'asc' };
    const order = this.order(sort.key);
    const offset = q.offset ?? 0;
    const limit = q.limit ?? 200;
    const rows: RolloutRow[] = [];
    let total = 0;
    const n = order.length;
    for (let i = 0; i < n; i++) {
      const r = this.rows[order[sort.dir === 'asc' ? i : n - 1 - i]!]!;
      if (!rowPasses(r, q.filter)) continue;
      if (total >= offset && rows.length < limit) rows.push(r);
      total++;
    }
    return { total, offset: Math.min(offset, total), rows };
  }
}

function baseCompare(a: RolloutRow, b: RolloutRow): number {
  return a.generation - b.generation || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

function sortedPositions(n: number, cmp: (i: number, j: number) => number): Uint32Array {
  const positions = Array.from({ length: n }, (_, i) => i);
  positions.sort(cmp);
  return Uint32Array.from(positions);
}
