import assert from 'node:assert/strict';
import { formatEval } from '../../../src/cli/commands/eval.js';
import { evalPair, evalSummary } from '../../../src/core/metrics/evalResult.js';
import { evalResultSchema, type EvalResult } from '../../../src/core/metrics/metricsSchema.js';
import type { RolloutRecord } from '../../../src/core/rollout/trajectory.js';

const band = { low: 0.4, high: 0.6 };
const plays = (successes: number, n: number): RolloutRecord[] => Array.from({ length: n }, (_, i) => ({ status: 'terminated', success: i < successes }) as RolloutRecord);

function result(users: number): EvalResult {
  const pairs = [9, 10, 14, 3].map((s, i) => evalPair({ pairId: `p${i}`, envId: `e${i}`, userId: 'u', family: 'log-triage', records: plays(s, 20) }, band, null));
  return evalResultSchema.parse({
    evalVersion: 1, kind: 'eval',
    source: { kind: 'run', runDir: '/r', runId: 'r1', generation: 4, paths: [] },
    agent: { id: 'agent-g0001', role: 'builtin', from: 'run' },
    seed: 7, n: 20, band, rolloutIds: { prefix: 'eval-s7-', checkedAgainst: 100, overlap: 0 },
    pairs, summary: evalSummary(pairs, band),
    userEffect: { users: [], mean: { n: users, mean: 0.25, ci: users >= 2 ? [0.05, 0.45] : [0.25, 0.25] } },
  });
}

describe('coevolve eval output', () => {
  it('prints the in-band share with its sd over another draw, read from the result', () => {
    const r = result(3);
    assert.ok(r.summary.inBandRedrawSd! > 0);
    const text = formatEval(r, '/out');
    assert.match(text, /in band: 50% of 4 pairs \(sd \d+ points over another draw of 20 plays each\)/);
    assert.match(text, /0\.250 \[0\.050, 0\.450\] over 3 users/);
    assert.equal(typeof r.summary.trueSpread, 'number');
    assert.match(text, /true success spreads \d\.\d\d \(sd, binomial noise removed\)/);
    assert.equal(typeof r.summary.inBandExpected, 'number');
    assert.ok(text.includes(`another draw would read ${Math.round(r.summary.inBandExpected! * 100)}% on average`), text);
  });
  it("prints whether the run's model and pooled evidence foretold the fresh plays, and nothing without them", () => {
    const beliefs = [0.5, 0.45, 0.8, 0.1];
    const pairs = [9, 10, 14, 3].map((s, i) => evalPair({ pairId: `p${i}`, envId: `e${i}`, userId: 'u', family: 'log-triage', records: plays(s, 20), belief: { predicted: beliefs[i]!, posteriorMean: 0.5 } }, band, null));
    const summary = evalSummary(pairs, band);
    assert.equal(summary.modelCheck!.pairs, 4);
    assert.equal(summary.evidenceCheck!.slope, null, 'every posterior mean is 0.5');
    const text = formatEval(evalResultSchema.parse({ ...result(3), pairs, summary }), '/out');
    assert.match(text, /the run's fitted model: off by \d\.\d\d rms \(noise removed; knowing only the mean: \d\.\d\d\), bias [+−]\d\.\d\d, slope \d\.\d\d \(1 calibrated, 0 no information\) over 4 pairs/);
    assert.match(text, /the run's pooled evidence: .* slope — /);
    assert.doesNotMatch(formatEval(result(3), '/out'), /fitted model/);
  });
  it('gives no interval over users from one user, and reads results written before the sd', () => {
    const r = result(1);
    assert.match(formatEval(r, '/out'), /0\.250 from one user \(no interval over users\)/);
    const { inBandRedrawSd: _dropped, trueSpread: _spread, inBandExpected: _expected, ...old } = r.summary;
    const text = formatEval(evalResultSchema.parse({ ...r, summary: old }), '/out');
    assert.match(text, /in band: 50% of 4 pairs · mean/);
  });
});
