// The controller in-process on the process backend (no service needed): the same seed gives the same metrics at
// any concurrency, and a run stopped mid-generation resumes from its directory to the same metrics.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBuiltinRoles } from '../../../src/builtin/roles.js';
import { findFamily } from '../../../src/builtin/families/registry.js';
import { seedUsers } from '../../../src/builtin/user/seedUsers.js';
import { runCoevolution, type RunOutcome } from '../../../src/core/evolution/controller.js';
import type { ControllerProgress } from '../../../src/core/evolution/controllerPorts.js';
import type { GenerationMetrics } from '../../../src/core/metrics/generationMetrics.js';
import { systemClock } from '../../../src/core/ports/clock.js';
import type { RunEvent } from '../../../src/core/ports/runStore.js';
import { createRng } from '../../../src/core/ports/rng.js';
import { runConfigSchema, type RunConfig } from '../../../src/core/spec/run.js';
import { createSandboxBackend } from '../../../src/sandbox/factory.js';
import { loadRunHistory } from '../../../src/store/runHistory.js';
import { openRun, readGenerationMetrics } from '../../../src/store/runReader.js';
import { buildReport, formatReportMarkdown } from '../../../src/cli/run/report.js';
import { runLayout } from '../../../src/store/layout.js';
import { RunWriter } from '../../../src/store/runWriter.js';

const config = (concurrency: number): RunConfig =>
  runConfigSchema.parse({
    apiVersion: 'coevolve/v1', kind: 'Run', name: 'ctl', seed: 11, generations: 2, concurrency,
    population: { builtinFamilies: ['log-triage', 'file-organize'], pairsPerGeneration: 3, childrenPerGeneration: 2 },
    k: 2, hintPlays: 1, sandbox: { backend: 'process' },
  });

const seeds = () => ({
  environments: ['log-triage', 'file-organize'].map((f) => findFamily(f)!.generate({ level: 1 }, createRng(`11/seed/${f}/1`))),
  users: seedUsers().slice(0, 2),
});

const untimed = (ms: GenerationMetrics[]): unknown => ms.map(({ durationMs: _d, ...rest }) => rest);

describe('controller (in process, process backend)', function () {
  this.timeout(600_000);
  const dirs: string[] = [];
  const backend = createSandboxBackend('process', { warn: () => undefined });
  after(async () => {
    await backend.dispose();
    dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
  });

  async function run(concurrency: number, opts: { stopAfterRollouts?: number } = {}): Promise<{ outcome: RunOutcome; dir: string; measured: Map<number, number[]> }> {
    const out = mkdtempSync(join(tmpdir(), 'coevolve-ctl-'));
    dirs.push(out);
    const cfg = config(concurrency);
    const writer = RunWriter.create(out, { runId: `ctl-${concurrency}`, name: 'ctl', seed: cfg.seed, toolVersion: 'test', startedAt: new Date().toISOString(), config: cfg, roles: {} });
    const abort = new AbortController();
    let finished = 0;
    const measured = new Map<number, number[]>();
    const onProgress = (p: ControllerProgress): void => {
      if (p.type === 'measurement.finished') measured.set(p.generation, [...(measured.get(p.generation) ?? []), p.done]);
      if (p.type === 'rollout.finished' && opts.stopAfterRollouts !== undefined && ++finished >= opts.stopAfterRollouts) abort.abort(new Error('stop'));
    };
    const outcome = await runCoevolution({ config: cfg, recorder: writer, backend, roles: createBuiltinRoles(), seeds: seeds(), clock: systemClock, signal: abort.signal, onProgress });
    await writer.close();
    return { outcome, dir: writer.runDir, measured };
  }

  let reference: RunOutcome;
  let referenceDir: string;
  let referenceMeasured: Map<number, number[]>;
  before(async () => {
    ({ outcome: reference, dir: referenceDir, measured: referenceMeasured } = await run(1));
  });

  it('tells the progress report of every measurement play, counted 1, 2, 3... per generation', () => {
    for (const g of [0, 1]) {
      const ids = JSON.parse(readFileSync(join(referenceDir, 'artifacts', 'ids', `g000${g}.json`), 'utf8')) as string[];
      assert.ok(ids.length > 0, `generation ${g} made measurement plays`);
      assert.deepEqual(referenceMeasured.get(g), ids.map((_, i) => i + 1), `generation ${g}: one progress event per id in artifacts/ids`);
    }
  });

  it('completes every generation with children and metrics', () => {
    assert.equal(reference.status, 'completed');
    assert.equal(reference.metrics.length, 2);
    for (const m of reference.metrics) {
      assert.equal(m.rollouts, 3 * 3);
      assert.ok(m.successRate >= 0 && m.successRate <= 1);
      // Every planned child is decided this generation or, a user child, put on probation (decided in a later look).
      const effects = m.userEffect.users;
      const newOnProbation = effects.filter((u) => u.decision === 'probation' && u.looks === 1).length;
      const decidedFromEarlier = effects.filter((u) => u.decision !== 'probation' && (u.looks ?? 1) > 1).length;
      assert.equal(m.frontierYield.proposed + newOnProbation - decidedFromEarlier, 2);
    }
  });

  it("records the steering's aim against the screening plays of the children it planned", () => {
    const checks = reference.metrics.map((m) => m.frontierYield.aim);
    assert.ok(checks.some((a) => a), 'some generation screened a child');
    for (const a of checks) {
      if (!a) continue;
      // Every screened child played the 4 screening plays (childRules.screeningPlays).
      assert.equal(a.plays, 4 * a.children);
      assert.ok(a.predicted > 0 && a.predicted < 1);
      assert.ok(a.ci[0] <= a.screened && a.screened <= a.ci[1]);
      assert.equal(Math.round(a.screened * a.plays) / a.plays, a.screened, 'a share of whole plays');
    }
    // Each child's event carries its planned prediction, so the aim can be checked child by child (by move).
    const children = openRun(referenceDir).events.filter((e): e is Extract<RunEvent, { type: 'spec.added' | 'child.rejected' }> => (e.type === 'spec.added' && e.generation > 0) || e.type === 'child.rejected');
    assert.ok(children.length > 0);
    for (const e of children) {
      const predicted = (e as { predicted?: number }).predicted;
      assert.ok(typeof predicted === 'number' && predicted > 0 && predicted < 1, `${e.type} ${(e as { id?: string }).id}: predicted ${predicted}`);
    }
    // The report splits the aim by move over the run: every screened environment child is in exactly one move's row.
    const report = buildReport(referenceDir);
    const screened = children.filter((e) => e.kind === 'environment' && (e.validation?.screening?.trials ?? 0) > 0);
    assert.ok(report.aimByMove.length > 0);
    assert.equal(report.aimByMove.reduce((t, m) => t + m.children, 0), screened.length);
    assert.equal(report.aimByMove.reduce((t, m) => t + m.plays, 0), screened.reduce((t, e) => t + e.validation!.screening!.trials, 0));
    assert.match(formatReportMarkdown(report), /\| by move +\| children \| steps \| +aimed → screened \|/);
  });

  it('records an event for every outcome a generation counts, new pairings included, and their screening is the aim record', () => {
    const events = openRun(referenceDir).events;
    for (const m of reference.metrics) {
      const g = m.index;
      const admitted = events.filter((e) => (e.type === 'spec.added' && e.parent !== null) || e.type === 'pair.added').filter((e) => (e as { generation: number }).generation === g + 1);
      const refused = events.filter((e) => (e.type === 'child.rejected' || e.type === 'pair.rejected') && e.generation === g);
      // A user child on probation has no outcome (and no event) until a look decides it.
      assert.equal(admitted.length + refused.length, m.frontierYield.proposed, `generation ${g}: one event per outcome`);
      assert.equal(admitted.length, m.frontierYield.accepted);
      // The screened children's plays on their events are the generation's aim record, play for play.
      const screening = [...admitted, ...refused].flatMap((e) => {
        const s = e.type === 'pair.added' || e.type === 'pair.rejected' ? e.screening : e.type === 'spec.added' || e.type === 'child.rejected' ? (e.kind === 'environment' ? e.validation?.screening : undefined) : undefined;
        return s && s.trials > 0 ? [s] : [];
      });
      assert.equal(screening.reduce((t, s) => t + s.trials, 0), m.frontierYield.aim?.plays ?? 0, `generation ${g}: screening plays`);
    }
    const pairings = events.filter((e) => e.type === 'pair.added' || e.type === 'pair.rejected');
    for (const e of pairings) assert.ok(e.predicted > 0 && e.predicted < 1 && e.envId && e.userId && e.operator, JSON.stringify(e));
  });

  it('gives the same metrics and the same measurement-id lists at concurrency 4', async () => {
    const { outcome, dir } = await run(4);
    assert.deepEqual(untimed(outcome.metrics), untimed(reference.metrics));
    // artifacts/ids lists the generation's measurement plays in plan order: children screened concurrently once
    // wrote them in the order their screening started, so the file depended on the concurrency.
    for (const m of reference.metrics) {
      const ids = (d: string): string[] => JSON.parse(readFileSync(runLayout.artifact(d, `ids/g${String(m.index).padStart(4, '0')}.json`), 'utf8')) as string[];
      assert.ok(ids(referenceDir).length > 0, `generation ${m.index} measured something`);
      assert.deepEqual(ids(dir), ids(referenceDir), `generation ${m.index}: ids in plan order`);
    }
  });

  it('stops cleanly mid-generation and resumes to the same metrics, playing no rollout twice', async () => {
    const { outcome, dir } = await run(2, { stopAfterRollouts: 11 });
    assert.equal(outcome.status, 'stopped');
    assert.equal(openRun(dir).status, 'stopped');
    const before = openRun(dir).rollouts.size;
    assert.ok(before >= 11 && before < 18, `rollouts recorded before the stop: ${before}`);

    const cfg = config(2);
    const writer = RunWriter.reopen(dir);
    const resumed = await runCoevolution({ config: cfg, recorder: writer, backend, roles: createBuiltinRoles(), seeds: seeds(), history: loadRunHistory(dir), clock: systemClock });
    await writer.close();
    assert.equal(resumed.status, 'completed');
    const index = openRun(dir);
    assert.equal(index.status, 'completed');
    assert.equal(index.rollouts.size, 18);
    const finishedEvents = index.events.filter((e) => e.type === 'rollout.finished').length;
    assert.equal(finishedEvents, 18, 'each rollout finished exactly once');
    const all = index.generations.map((g) => readGenerationMetrics<GenerationMetrics>(dir, g.index)!);
    assert.deepEqual(untimed(all), untimed(reference.metrics));
  });
});
