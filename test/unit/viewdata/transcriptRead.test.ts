import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLayout } from '../../../src/store/layout.js';
import { readRollout } from '../../../src/store/runReader.js';
import { RunRegistry } from '../../../src/viewdata/runRegistry.js';
import { stepText } from '../../../src/viewdata/stepText.js';
import { readTranscript } from '../../../src/viewdata/transcriptRead.js';
import { ViewData } from '../../../src/viewdata/viewRequests.js';
import { makeRun } from '../../fixtures/makeRun.js';
import { ownTranscriptCache } from '../../support/transcriptCache.js';

describe('transcript index: the light read of a rollout file, against a hostile run directory', () => {
  let out: string;
  let runDir: string;
  let outside: string;

  before(async function () {
    this.timeout(30_000);
    out = mkdtempSync(join(tmpdir(), 'coevolve-transcript-read-'));
    outside = mkdtempSync(join(tmpdir(), 'coevolve-outside-'));
    runDir = await makeRun(out, { generations: 2, pairsPerGeneration: 3, k: 2, hintPlays: 0 });
  });
  after(() => {
    rmSync(out, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  const rows = (data: ViewData) => data.rows(data.runs.get(runDir));

  it('reads the same step texts as the full reader (readRollout + stepText) for every rollout of a run', () => {
    const data = new ViewData(new RunRegistry(() => [out]), { transcriptCache: ownTranscriptCache() });
    for (const r of rows(data)) {
      const full = readRollout(runDir, r).steps.map((s) => ({ id: s.step_id, source: s.source, text: stepText(s) }));
      assert.deepEqual(readTranscript(runDir, r), full, r.id);
    }
  });

  it('skips planted files (a link out of the run, a FIFO, another rollout id, wrong types, deep nesting) and never crashes', async () => {
    const data = new ViewData(new RunRegistry(() => [out]), { transcriptCache: ownTranscriptCache() });
    const [a, b, c, d, e, f, g, ...rest] = rows(data);
    assert.ok(g && rest.length > 0, 'the fixture has enough rollouts');
    const file = (r: { generation: number; id: string }) => runLayout.rollout(runDir, r.generation, r.id);
    const record = (r: { generation: number; id: string }) => JSON.parse(readFileSync(file(r), 'utf8')) as Record<string, unknown>;
    // a: a link to a file outside the run directory holding a secret word in a valid rollout of a's id.
    writeFileSync(join(outside, 'secret.json'), JSON.stringify({ ...record(a!), steps: [{ step_id: 1, timestamp: 't', source: 'agent', message: 'zqsecretzq' }] }));
    rmSync(file(a!));
    symlinkSync(join(outside, 'secret.json'), file(a!));
    // b: a FIFO under the rollout's name (a blocking read would hang the host).
    rmSync(file(b!));
    execFileSync('mkfifo', [file(b!)]);
    // c: another rollout's content (the copy holds c's neighbour's id).
    writeFileSync(file(c!), JSON.stringify({ ...record(d!), steps: [{ step_id: 1, timestamp: 't', source: 'agent', message: 'zqcopyzq' }] }));
    // d: steps of the wrong shape; e: arguments nested far deeper than JSON.stringify can walk; f: not JSON at all.
    writeFileSync(file(d!), JSON.stringify({ ...record(d!), steps: [{ step_id: 'one', source: 7, message: null }] }));
    const deep = '{"a":'.repeat(200_000) + '1' + '}'.repeat(200_000);
    writeFileSync(file(e!), JSON.stringify({ ...record(e!), steps: [] }).replace('"steps":[]', `"steps":[{"step_id":1,"timestamp":"t","source":"agent","message":"zqdeepzq","tool_calls":[{"tool_call_id":"x","function_name":"f","arguments":${deep}}]}]`));
    writeFileSync(file(f!), '{"id": "');
    // g: observation results without content, a hostile command and extra (stepText reads them whatever they hold).
    writeFileSync(file(g!), JSON.stringify({ ...record(g!), steps: [{ step_id: 1, timestamp: 't', source: 'agent', message: 'zqobszq', observation: { results: [{ source_call_id: 'x' }] } }] }));

    for (const r of [a, b, c, d, e, f, g]) assert.equal(readTranscript(runDir, r!), 'refused', r!.id);
    for (const q of ['zqsecretzq', 'zqcopyzq', 'zqdeepzq', 'zqobszq']) {
      const got = await data.handlers['rollouts/search']({ runDir, query: q });
      assert.equal(got.total, 0, q);
    }
    // The rest of the run is still searched: every rollout that was not planted.
    const all = await data.handlers['rollouts/search']({ runDir, query: 'a', limit: 1000 });
    assert.equal(all.searched, rest.length);
  });
});
