import * as assert from 'node:assert/strict';
import type { GenerationMetrics } from '../../../src/core/metrics/generationMetrics.js';
import { chartSpecs, chartsFor, seriesOf } from '../../../src/webview/render/chartSpecs.js';
import { formatDelta } from '../../../src/webview/render/comparePanel.js';
import { noOutcomeText } from '../../../src/webview/render/verdict.js';
import type { DashboardView, RunOverview } from '../../../src/webview/protocol.js';

const metrics = (index: number, success: number, verifier: number): GenerationMetrics => ({
  index, successRate: success, verifierSuccessRate: verifier, passAtK: { 4: 0.9 }, passHatK: { 4: 0.1 },
} as unknown as GenerationMetrics);

const run = (gens: GenerationMetrics[]): RunOverview => ({ runDir: '/r', name: 'demo', runId: 'abc', status: 'completed', startedAt: '2026-12-01T09:19:00Z', k: 4, band: { low: 0.4, high: 0.6 }, roles: {}, generations: gens, pendingGenerations: [] });
const view = (r: RunOverview): DashboardView => ({ run: r, lineage: [], rejections: [], agentUpdates: [], compare: null });

describe('dashboard chart series', () => {
  const success = chartSpecs.find((c) => c.id === 'success')!;

  it('folds a series equal to an earlier one at every point into it, so identical lines do not hide each other', () => {
    const r = run([metrics(0, 0.5, 0.5), metrics(1, 0.4, 0.4)]);
    const drawn = seriesOf(success, view(r), r, 2);
    assert.deepEqual(drawn.map((d) => d.label), ['success = verifier alone', 'pass@k', 'pass^k']);
  });

  it('keeps series that differ anywhere, and leaves a missing generation as a gap', () => {
    const r = run([metrics(0, 0.5, 0.5), metrics(2, 0.4, 0.3)]);
    const drawn = seriesOf(success, view(r), r, 3);
    assert.deepEqual(drawn.map((d) => d.label), ['success', 'verifier alone', 'pass@k', 'pass^k']);
    assert.deepEqual(drawn[0]!.values, [0.5, null, 0.4]);
  });

  it('charts version-2 fields only for runs that recorded them, and never mixes units on one chart', () => {
    const v1 = run([metrics(0, 0.5, 0.5)]);
    const ids = chartsFor([v1]).map((c) => c.id);
    assert.ok(!ids.includes('heldout') && !ids.includes('measured') && !ids.includes('archive'));
    const v2 = run([{ ...metrics(0, 0.5, 0.5), heldOut: { test: { pairs: 1, playsPerPair: 1, source: 'seeds', score: { plays: 1, successes: 1, success: 1, ci: [0.2, 1], agentId: 'a', measuredAt: 0 }, vsPrevious: null }, promotion: null } } as unknown as GenerationMetrics]);
    assert.ok(chartsFor([v2]).some((c) => c.id === 'heldout'));
    for (const c of chartSpecs) assert.ok(c.unit, `${c.id} has one unit`);
    assert.ok(!chartSpecs.some((c) => c.id === 'cost' && c.series.some((s) => s.label === 'errors')), 'cost and error counts are apart');
  });

  it('charts plays with no outcome beside errors, and leaves the series out for a run that did not count them', () => {
    const errors = chartSpecs.find((c) => c.id === 'errors')!;
    const counted = (index: number, errs: number, unfinished: number | undefined, truncated: number): GenerationMetrics =>
      ({ ...metrics(index, 0.5, 0.5), errors: errs, truncated, ...(unfinished === undefined ? {} : { unfinished }) }) as unknown as GenerationMetrics;
    const r = run([counted(0, 1, 2, 0), counted(1, 0, 0, 3)]);
    assert.deepEqual(seriesOf(errors, view(r), r, 2).map((d) => [d.label, d.values]), [['errors', [1, 0]], ['no outcome', [2, 0]], ['truncated', [0, 3]]]);
    const none = run([counted(0, 0, 0, 1)]);
    assert.deepEqual(seriesOf(errors, view(none), none, 1).map((d) => d.label), ['errors = no outcome', 'truncated'], 'equal lines fold');
    const old = run([counted(0, 0, undefined, 1)]);
    assert.deepEqual(seriesOf(errors, view(old), old, 1).map((d) => d.label), ['errors', 'truncated'], 'not recorded: not drawn as 0');
    // The verdict's health card says it only when some play had no outcome.
    assert.equal(noOutcomeText(r.generations), ', 2 had no outcome (their verification or rating was cut short)');
    assert.equal(noOutcomeText(none.generations), '');
    assert.equal(noOutcomeText(old.generations), '');
  });

  it('writes differences of shares in percentage points', () => {
    assert.equal(formatDelta('share', 0.17), '+17 pp');
    assert.equal(formatDelta('share', -0.04), '−4 pp');
    // The sign follows the rounded figure: a difference that rounds to zero is not "+0 pp".
    assert.equal(formatDelta('share', 0.002), '±0 pp');
    assert.equal(formatDelta('number', 0.0921), '+0.092');
  });
});
