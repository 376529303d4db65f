import * as assert from 'node:assert/strict';
import { RolloutTableIndex, rowPasses } from '../../../src/viewdata/rolloutTable.js';
import { rolloutSortKeys, type RolloutFilter, type RolloutRow, type RolloutSortKey } from '../../../src/webview/protocol.js';

// A seeded generator, so a failure names rows that can be made again.
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

function rows(n: number, seed: number): RolloutRow[] {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  return Array.from({ length: n }, (_, i) => ({
    id: `r${Math.floor(r() * 1e6).toString(36)}-${i}`, generation: Math.floor(r() * 5), pairId: `p${i % 7}`, envId: pick(['log-triage-a', 'Log-triage-b', 'csv-fix', 'émoji-env']),
    userId: pick(['terse', 'verbose', 'Zed']), family: pick(['log-triage', 'csv', '']), difficulty: null, trial: Math.floor(r() * 3), hint: r() < 0.1,
    status: pick(['terminated', 'truncated', 'error'] as const), success: r() < 0.5, reward: pick([0, 1, -0.33, 0.5, Math.round(r() * 100) / 100]),
    durationMs: Math.floor(r() * 5000), costUsd: pick([0, 0.001, 0.002]), tokens: Math.floor(r() * 3) * 100, steps: Math.floor(r() * 12), tags: r() < 0.3 ? ['x'] : [],
  }));
}

/** The definition the index must agree with: filter, then sort by the key with ties by (generation, id). */
function reference(all: RolloutRow[], key: RolloutSortKey, dir: 'asc' | 'desc', filter?: RolloutFilter): RolloutRow[] {
  const base = (a: RolloutRow, b: RolloutRow): number => a.generation - b.generation || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const cmp = (a: RolloutRow, b: RolloutRow): number => {
    if (key === 'generation') return base(a, b);
    const x = a[key];
    const y = b[key];
    const c = typeof x === 'string' && typeof y === 'string' ? x.localeCompare(y) : Number(x) - Number(y);
    return c || base(a, b);
  };
  return all.filter((r) => rowPasses(r, filter)).sort(dir === 'asc' ? cmp : (a, b) => -cmp(a, b));
}

describe('rollout table index: sort orders computed once per key, queries walk them', () => {
  const all = rows(600, 7);
  const index = new RolloutTableIndex(all);
  const filters: (RolloutFilter | undefined)[] = [undefined, { outcome: 'failed' }, { minReward: 0.5, hint: false }, { families: ['csv'], generations: [1, 3] }, { tags: ['x'], statuses: ['error'] }];

  it('pages every key, both directions, with and without filters, exactly as filtering then sorting the rows', () => {
    for (const key of rolloutSortKeys) {
      for (const dir of ['asc', 'desc'] as const) {
        for (const filter of filters) {
          const want = reference(all, key, dir, filter);
          for (const [offset, limit] of [[0, 200], [37, 50], [want.length - 3, 10], [want.length + 5, 10]] as const) {
            const page = index.query({ sort: { key, dir }, filter, offset: Math.max(0, offset), limit });
            assert.equal(page.total, want.length, `${key} ${dir} ${JSON.stringify(filter)}: total`);
            assert.deepEqual(page.rows.map((r) => r.id), want.slice(Math.max(0, offset), Math.max(0, offset) + limit).map((r) => r.id), `${key} ${dir} ${JSON.stringify(filter)} @${offset}`);
          }
        }
      }
    }
  });

  it('defaults to generation then id, 200 rows, and says where a page past the end starts', () => {
    const page = index.query({});
    assert.equal(page.rows.length, 200);
    assert.deepEqual(page.rows.map((r) => r.id), reference(all, 'generation', 'asc').slice(0, 200).map((r) => r.id));
    assert.deepEqual(index.query({ offset: 10_000 }), { total: all.length, offset: all.length, rows: [] });
  });

  it('keeps one order per key (later queries do not sort again) and the facets of the whole run', () => {
    assert.equal(index.order('reward'), index.order('reward'));
    assert.deepEqual(index.facets.generations, [0, 1, 2, 3, 4]);
    assert.equal(index.facets, index.facets);
  });
});
