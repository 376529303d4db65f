// The one rule for what a rollout says as evidence about the agent (src/core/rollout/verdict.ts): its success, or no
// outcome when an infrastructure error stopped it or a step that decides success (verification, the user's rating)
// did not finish. It reads the stored record and the event log's summary alike.
import assert from 'node:assert/strict';
import { pairedDifferences, verdictOf } from '../../../src/core/rollout/verdict.js';
import { summarizeRollout, type RolloutRecord } from '../../../src/core/rollout/trajectory.js';
import { fixtureRollout } from '../../fixtures/makeRun.js';

const pair = { pairId: 'p0000', envId: 'e0', userId: 'u0', source: 'seed' as const };
const record = (success: boolean, over: Partial<RolloutRecord> = {}): RolloutRecord => ({ ...fixtureRollout({ runId: 'r', generation: 0, pair, trial: 0, hint: false, success, steps: [], startedMs: 0, agentId: 'a' }), ...over });
const cut = (step: 'verification' | 'rating' | 'judging') => ({ unfinished: { step, reason: 'wall_clock' as const, note: '' } });

describe('verdictOf', () => {
  it('is the success of a finished play, whatever its ending', () => {
    assert.equal(verdictOf(record(true)), true);
    assert.equal(verdictOf(record(false)), false);
    assert.equal(verdictOf(record(false, { status: 'truncated', truncationReason: 'turns' })), false);
  });
  it('is no outcome for an infrastructure error', () => {
    assert.equal(verdictOf(record(false, { status: 'error', errorKind: 'model' })), null);
  });
  it('is no outcome when verification or the rating did not finish (success depends on both)', () => {
    assert.equal(verdictOf(record(false, cut('verification'))), null);
    assert.equal(verdictOf(record(false, cut('rating'))), null);
  });
  it('is the success when only the judge tagging did not finish (tags do not enter success)', () => {
    assert.equal(verdictOf(record(true, cut('judging'))), true);
    assert.equal(verdictOf(record(false, cut('judging'))), false);
  });
  it('leaves a pair of plays out of a paired difference (user effect, vs reference) when either side has no outcome', () => {
    const first = [record(true), record(false, cut('verification')), record(true), record(false)];
    const second = [record(false), record(true), record(false, cut('rating')), record(false)];
    assert.deepEqual(pairedDifferences(first, second), [1, 0]);
  });

  it('reads the summary the event log keeps the same way as the record', () => {
    for (const r of [record(true), record(false, cut('verification')), record(false, cut('rating')), record(true, cut('judging'))]) {
      assert.equal(verdictOf(summarizeRollout(r)), verdictOf(r), JSON.stringify(r.unfinished ?? null));
    }
  });
});
