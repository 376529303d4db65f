import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appendCuration } from '../../../src/store/curation.js';
import { openRun } from '../../../src/store/runReader.js';
import { writeBundle } from '../../../src/view/bundle.js';
import type { StaticDataset } from '../../../src/webview/browserTransport.js';
import { makeRun } from '../../fixtures/makeRun.js';

describe('coevolve view --bundle: the dataset it carries', () => {
  let work: string;

  before(() => {
    work = mkdtempSync(join(tmpdir(), 'coevolve-bundle-dataset-'));
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it('holds the curated items the bundle holds: never a rejected item or a hint play, comments scrubbed of secrets', async function () {
    this.timeout(30_000);
    const runs = join(work, 'runs');
    const runDir = await makeRun(runs, { generations: 1, pairsPerGeneration: 2, k: 2, hintPlays: 1 });
    const rollouts = [...openRun(runDir).rollouts.values()].filter((r) => r.status !== 'error');
    const plain = rollouts.find((r) => !r.hint)!;
    const hint = rollouts.find((r) => r.hint)!;
    const rejected = rollouts.find((r) => !r.hint && r.id !== plain.id)!;
    const secret = 'sk-bundletest-0123456789abcdef';
    process.env['COEVOLVE_TEST_API_KEY'] = secret;
    const otherEnv = rollouts.find((r) => r.envId !== plain.envId)!.envId;
    await appendCuration(runDir, [
      { at: '2026-01-01T00:00:01.000Z', target: { kind: 'rollout', id: plain.id }, action: 'accept' },
      { at: '2026-01-01T00:00:03.000Z', target: { kind: 'rollout', id: hint.id }, action: 'accept' },
      { at: '2026-01-01T00:00:04.000Z', target: { kind: 'rollout', id: rejected.id }, action: 'reject' },
      { at: '2026-01-01T00:00:05.000Z', target: { kind: 'environment', id: plain.envId }, action: 'reject' },
      { at: '2026-01-01T00:00:06.000Z', target: { kind: 'environment', id: otherEnv }, action: 'label', label: 'x' },
      { at: '2026-01-01T00:00:07.000Z', target: { kind: 'environment', id: otherEnv }, action: 'comment', text: `key was ${secret}` },
    ]);
    const assets = join(work, 'assets');
    mkdirSync(assets);
    const out = join(work, 'bundle');
    try {
      writeBundle(out, [runs], { assetsDir: assets });
    } finally {
      delete process.env['COEVOLVE_TEST_API_KEY'];
    }
    const text = readFileSync(join(out, 'data', 'dataset.json'), 'utf8');
    const d = JSON.parse(text) as StaticDataset;
    const ids = d.runs.flatMap((r) => r.items.map((i) => `${i.target.kind}:${i.target.id}`));
    // The plain rollout's environment was rejected, so the selection leaves the rollout out too.
    assert.ok(!ids.includes(`rollout:${plain.id}`), 'a rollout of a rejected environment is not in the bundle');
    assert.ok(!ids.includes(`rollout:${hint.id}`), 'no hint play');
    assert.ok(!ids.includes(`rollout:${rejected.id}`), 'no rejected rollout');
    assert.ok(!ids.includes(`environment:${plain.envId}`), 'no rejected environment');
    assert.deepEqual(ids.filter((i) => i.startsWith('environment:')), [`environment:${otherEnv}`], 'the labelled environment is in');
    const comment = d.runs.flatMap((r) => r.items).find((i) => i.target.id === otherEnv)!.comments[0]!;
    assert.match(comment, /^key was /, 'its comment is carried');
    assert.ok(!text.includes(secret), 'with the secret scrubbed out');
    assert.match(d.note, /leaves out rejected items, hint plays/);
  });
});
