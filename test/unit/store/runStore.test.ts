import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RolloutRecord } from '../../../src/core/rollout/trajectory.js';
import { summarizeRollout } from '../../../src/core/rollout/trajectory.js';
import { runConfigSchema } from '../../../src/core/spec/run.js';
import { runLayout } from '../../../src/store/layout.js';
import { childAim, openRun, readRollout, RunFormatError } from '../../../src/store/runReader.js';
import { RunWriter } from '../../../src/store/runWriter.js';

const config = runConfigSchema.parse({ apiVersion: 'coevolve/v1', kind: 'Run', name: 'store-test', population: { builtinFamilies: ['log-triage'] } });

function rollout(id: string, generation: number, reward: number): RolloutRecord {
  return {
    formatVersion: 1, id, runId: 'r1', generation, pairId: 'p1', envId: 'e1', userId: 'u1', agentId: 'a1', trial: 0, hint: false, seed: 3,
    status: 'terminated', startedAt: '2026-01-01T00:00:00.000Z', finishedAt: '2026-01-01T00:00:01.000Z', durationMs: 1000,
    roles: { agent: 'a', user: 'u', judge: 'j' }, sandbox: { backend: 'process', host: 'local', image: 'x' },
    steps: [{ step_id: 1, timestamp: '2026-01-01T00:00:00.000Z', source: 'user', message: 'hi <script>' }],
    rewards: { verifier: reward, userGoal: 1, satisfaction: 1, efficiency: 0, rubric: 0, total: reward },
    success: reward === 1, tags: [], usage: { promptTokens: 1, completionTokens: 2, cachedTokens: 0, costUsd: 0.5 }, timing: { sandboxMs: 1, modelMs: 0 },
  };
}

describe('run store', () => {
  let out: string;
  beforeEach(() => { out = mkdtempSync(join(tmpdir(), 'coevolve-store-')); });
  afterEach(() => rmSync(out, { recursive: true, force: true }));

  async function writeRun(): Promise<string> {
    const w = RunWriter.create(out, { runId: 'r1', name: 'store-test', seed: 1, toolVersion: 't', startedAt: '2026-01-01T00:00:00.000Z', config, roles: {} });
    await w.append({ type: 'run.started', runId: 'r1' });
    await w.append({ type: 'generation.started', generation: 0, agentId: 'a1', pairs: [{ pairId: 'p1', envId: 'e1', userId: 'u1', source: 'seed' }] });
    for (const [i, r] of [[0, 1], [1, 0]] as const) {
      const rec = rollout(`g0-p1-t${i}`, 0, r);
      await w.append({ type: 'rollout.started', generation: 0, rolloutId: rec.id, pairId: 'p1' });
      await w.writeRollout(rec);
      await w.append({ type: 'rollout.finished', summary: summarizeRollout(rec) });
    }
    await w.append({ type: 'generation.finished', generation: 0 });
    await w.append({ type: 'run.finished', status: 'completed' });
    await w.close();
    return w.runDir;
  }

  it('round-trips manifest, events and rollouts', async () => {
    const dir = await writeRun();
    const run = openRun(dir);
    assert.equal(run.manifest.name, 'store-test');
    assert.equal(run.manifest.formatVersion, 1);
    assert.equal(run.status, 'completed');
    assert.equal(run.generations.length, 1);
    assert.deepEqual(run.generations[0]!.rollouts.map((r) => r.reward), [1, 0]);
    assert.deepEqual(run.events.map((e) => e.seq), [1, 2, 3, 4, 5, 6, 7, 8]);
    const rec = readRollout(dir, { generation: 0, id: 'g0-p1-t0' });
    assert.equal(rec.steps[0]!.message, 'hi <script>');
    assert.deepEqual(rec, rollout('g0-p1-t0', 0, 1));
  });

  it("indexes a child's aim from its events: planned prediction and screening plays; none for a seed or an older run", async () => {
    const w = RunWriter.create(out, { runId: 'r2', name: 'store-test', seed: 1, toolVersion: 't', startedAt: '2026-01-01T00:00:00.000Z', config, roles: {} });
    await w.append({ type: 'run.started', runId: 'r2' });
    await w.append({ type: 'spec.added', kind: 'environment', id: 'e1', parent: null, operator: null, generation: 0 });
    const screened = { oracleReward: 1, emptyReward: 0, screening: { successes: 3, trials: 4 } };
    await w.append({ type: 'spec.added', kind: 'environment', id: 'e2', parent: 'e1', operator: 'harder:horizon', generation: 1, validation: screened, predicted: 0.4812 });
    await w.append({ type: 'spec.added', kind: 'environment', id: 'e3', parent: 'e1', operator: 'easier:horizon', generation: 1, validation: screened });
    await w.append({ type: 'spec.added', kind: 'user', id: 'u2', parent: 'u1', operator: 'harder:terse', generation: 1, validation: { oracleReward: 1, emptyReward: 0 }, predicted: 0.55 });
    await w.append({ type: 'child.rejected', kind: 'environment', id: 'e4', parent: 'e1', operator: 'harder:feedback', reason: 'screened_out: 4/4', generation: 0, validation: { ...screened, screening: { successes: 4, trials: 4 } }, predicted: 0.5 });
    await w.close();
    const run = openRun(w.runDir);
    assert.equal(run.specs.get('e1')!.aim, undefined, 'a seed was not aimed');
    assert.deepEqual(run.specs.get('e2')!.aim, { predicted: 0.4812, screening: { successes: 3, trials: 4 } });
    assert.equal(run.specs.get('e3')!.aim, undefined, 'a run written before predictions were recorded has no aim');
    assert.deepEqual(run.specs.get('u2')!.aim, { predicted: 0.55 }, 'a user child has no screening plays');
    assert.deepEqual(childAim(run.rejections[0]!), { predicted: 0.5, screening: { successes: 4, trials: 4 } });
  });

  it('ignores a torn last line and repairs it before the next append', async () => {
    const dir = await writeRun();
    const events = runLayout.events(dir);
    appendFileSync(events, '{"seq":9,"at":"2026-01-01T00:00:02.000Z","type":"run.res');
    const torn = openRun(dir);
    assert.equal(torn.events.length, 8);
    assert.ok(torn.tornTailBytes > 0);
    const w = RunWriter.reopen(dir);
    await w.append({ type: 'run.resumed', fromGeneration: 1 });
    await w.close();
    const text = readFileSync(events, 'utf8');
    assert.ok(!text.includes('run.res"'), 'torn bytes were cut');
    const again = openRun(dir);
    assert.equal(again.tornTailBytes, 0);
    assert.deepEqual(again.events.map((e) => e.seq), [1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert.equal(again.status, 'interrupted');
  });

  it('marks a started-but-unfinished rollout as in flight', async () => {
    const w = RunWriter.create(out, { runId: 'r2', name: 'x', seed: 1, toolVersion: 't', startedAt: '2026-01-01T00:00:00.000Z', config, roles: {} });
    await w.append({ type: 'generation.started', generation: 0, agentId: 'a', pairs: [] });
    await w.append({ type: 'rollout.started', generation: 0, rolloutId: 'lost', pairId: 'p' });
    const run = openRun(w.runDir);
    assert.deepEqual(run.generations[0]!.inFlight, ['lost']);
    assert.equal(run.status, 'running', 'our own pid holds the lock');
    await w.close();
    assert.equal(openRun(w.runDir).status, 'interrupted');
  });

  it('refuses a newer format version with a clear message', async () => {
    const dir = await writeRun();
    const m = JSON.parse(readFileSync(runLayout.manifest(dir), 'utf8'));
    writeFileSync(runLayout.manifest(dir), JSON.stringify({ ...m, formatVersion: 99 }));
    assert.throws(() => openRun(dir), (err: unknown) => err instanceof RunFormatError && /v99.*newer.*v1/.test(err.message));
  });

  it('says when a folder is not a run', () => {
    assert.throws(() => openRun(out), /not a Coevolve run directory/);
  });
});
