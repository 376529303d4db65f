import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRun, readRollout } from '../../../src/store/runReader.js';
import { RunRegistry } from '../../../src/viewdata/runRegistry.js';
import { stepText } from '../../../src/viewdata/stepText.js';
import { ViewData } from '../../../src/viewdata/viewRequests.js';
import { makeRun } from '../../fixtures/makeRun.js';
import { ownTranscriptCache } from '../../support/transcriptCache.js';

describe('transcript search: the index answers what scanning every step would', () => {
  let out: string;
  let runDir: string;
  let data: ViewData;

  before(async function () {
    this.timeout(30_000);
    out = mkdtempSync(join(tmpdir(), 'coevolve-search-'));
    runDir = await makeRun(out, { generations: 2, pairsPerGeneration: 3, k: 2, hintPlays: 1 });
    data = new ViewData(new RunRegistry(() => [out]), { transcriptCache: ownTranscriptCache() });
  });
  after(() => rmSync(out, { recursive: true, force: true }));

  /** The definition: rollouts (in table order) with a step whose lowercased text contains the lowercased query. */
  function scan(query: string): { id: string; stepId: number; matches: number }[] {
    const q = query.toLowerCase();
    const rows = data.rows(data.runs.get(runDir));
    return rows.flatMap((row) => {
      const steps = readRollout(runDir, { generation: row.generation, id: row.id }).steps.filter((s) => stepText(s).includes(q));
      return steps.length ? [{ id: row.id, stepId: steps[0]!.step_id, matches: steps.length }] : [];
    });
  }

  it('finds the same rollouts, first steps and matching-step counts for one-word, many-word and odd queries', async () => {
    const queries = ['exit', 'EXIT', 'onerror', 'nerro', 'check.sh', 'exit code 0', 'sh check', '$ ', '"', ' ', '0\n', 'submit', 'no such text 9f3a', 'x\u0000y'];
    let seen = 0;
    for (const query of queries) {
      const want = scan(query);
      const got = await data.handlers['rollouts/search']({ runDir, query, limit: 1000 });
      assert.equal(got.total, want.length, `"${query}": total`);
      assert.deepEqual(got.hits.map((h) => ({ id: h.row.id, stepId: h.stepId, matches: h.matches })), want, `"${query}": hits`);
      for (const h of got.hits) assert.ok(h.snippet.toLowerCase().replace(/…/g, '').length > 0);
      seen += want.length;
    }
    assert.ok(seen > 0, 'the fixture has matches for some queries');
    assert.equal((await data.handlers['rollouts/search']({ runDir, query: 'a' })).searched, openRun(runDir).rollouts.size);
  });

  it('counts every match but reads only the hits it shows past the limit', async () => {
    const all = await data.handlers['rollouts/search']({ runDir, query: 'a', limit: 1000 });
    const few = await data.handlers['rollouts/search']({ runDir, query: 'a', limit: 2 });
    assert.equal(few.total, all.total);
    assert.deepEqual(few.hits, all.hits.slice(0, 2));
  });
});
