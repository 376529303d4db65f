// Issue 11 (outcome classes): infrastructure errors are excluded from success rates and counted per kind. The
// generation metrics carry the counts by kind; `coevolve report` shows them under the table; an old metrics file
// without them still reads and says the kind was not recorded.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildReport, formatReportMarkdown } from '../../../src/cli/run/report.js';
import { errorsByKind, generationMetrics } from '../../../src/core/metrics/generationMetrics.js';
import { parseGenerationMetrics } from '../../../src/core/metrics/metricsSchema.js';
import type { RolloutRecord } from '../../../src/core/rollout/trajectory.js';
import { makeRun } from '../../fixtures/makeRun.js';
import { runLayout } from '../../../src/store/layout.js';
import { openRun, readRollout } from '../../../src/store/runReader.js';

describe('infrastructure errors counted per kind (issue 11, outcome classes)', function () {
  this.timeout(60_000);
  let tmp: string;
  let dir: string;
  before(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'coevolve-error-kinds-'));
    dir = await makeRun(join(tmp, 'runs'), { generations: 2, pairsPerGeneration: 3, k: 2 });
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('generation metrics count each kind, and the kinds add up to errors', () => {
    const records = [...openRun(dir).rollouts.values()].filter((s) => s.generation === 0).map((s) => readRollout(dir, s));
    const plain = records.filter((r) => !r.hint);
    const asError = (r: RolloutRecord, kind?: RolloutRecord['errorKind']): RolloutRecord => ({ ...r, status: 'error', success: false, ...(kind ? { errorKind: kind } : {}) });
    const mixed = [asError(plain[0]!, 'model'), asError(plain[1]!, 'model'), asError(plain[2]!, 'sandbox-host'), asError(plain[3]!), ...records.slice(4)];
    const input = { index: 0, config: { band: { low: 0.4, high: 0.6, ramp: 0.25 } }, pairs: [], envs: [], users: [], archiveEnvs: [], children: { proposed: 0, accepted: 0, inBandChildren: 0, rejections: {}, added: 0, retired: 0 }, agent: { id: 'a', changed: false }, durationMs: 1 };
    const m = generationMetrics({ ...input, records: mixed });
    assert.equal(m.errors, 4);
    assert.deepEqual(m.errorsByKind, { model: 2, 'sandbox-host': 1, internal: 1 });
    assert.equal(Object.values(m.errorsByKind!).reduce((a, b) => a + b, 0), m.errors);
    assert.deepEqual(errorsByKind(records), {}, 'no error, no kind');
    assert.doesNotThrow(() => parseGenerationMetrics(JSON.parse(JSON.stringify(m))));
  });

  it('report lists the kinds per generation; a file from before the field says the kind was not recorded', () => {
    const g0 = runLayout.generationMetrics(dir, 0);
    const g1 = runLayout.generationMetrics(dir, 1);
    writeFileSync(g0, JSON.stringify({ ...JSON.parse(readFileSync(g0, 'utf8')), errors: 3, errorsByKind: { model: 2, 'sandbox-start': 1 } }));
    const old = JSON.parse(readFileSync(g1, 'utf8'));
    delete old.errorsByKind;
    writeFileSync(g1, JSON.stringify({ ...old, errors: 1 }));
    const text = formatReportMarkdown(buildReport(dir));
    assert.match(text, /infrastructure errors \(not counted in success or reward, left out of exports\):\n- generation 0: 2 model, 1 sandbox-start\n- generation 1: 1 \(kind not recorded by this run\)\n/);
    assert.throws(() => parseGenerationMetrics({ ...old, errorsByKind: { 'disk-full': 1 } }), /errorsByKind/);
  });

  it('report lists plays with no outcome per generation apart from errors, and says nothing of a run without any', () => {
    const g0 = runLayout.generationMetrics(dir, 0);
    const before = readFileSync(g0, 'utf8');
    assert.doesNotMatch(formatReportMarkdown(buildReport(dir)), /plays with no outcome/);
    writeFileSync(g0, JSON.stringify({ ...JSON.parse(before), unfinished: 2 }));
    assert.match(formatReportMarkdown(buildReport(dir)), /plays with no outcome \(the wall clock or a context overflow cut their verification or rating; not counted in success, left out of the evidence\):\n- generation 0: 2\n/);
    writeFileSync(g0, before);
  });
});
