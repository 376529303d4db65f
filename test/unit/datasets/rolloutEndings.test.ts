// How a rollout ended travels with it: the ATIF export carries the truncation reason and any step after the episode
// that did not finish, and the run reader opens records with or without them (older runs) but not malformed ones.
import assert from 'node:assert/strict';
import type { RolloutRecord } from '../../../src/core/rollout/trajectory.js';
import { toAtifTrajectory } from '../../../src/datasets/atifExport.js';
import { rolloutMetadata } from '../../../src/datasets/rolloutMetadata.js';
import { checkRolloutRecord } from '../../../src/store/records.js';
import { longRollout } from '../../fixtures/makeRun.js';

const base = longRollout(4);
const coevolveOf = (r: RolloutRecord): Record<string, unknown> => {
  const metadata = rolloutMetadata(r, { env: undefined, lineageRoot: r.envId, split: 'train', labels: [] });
  return (toAtifTrajectory(r, metadata).extra as { coevolve: Record<string, unknown> }).coevolve;
};
const unfinished = { step: 'rating' as const, reason: 'wall_clock' as const, note: "the run's wall clock ran out during the user's rating: no user rating or judge tags; the user's goal counts as not met" };

describe('how a rollout ended, exported and read back', () => {
  it('the ATIF export says which step after the episode did not finish, and leaves it out when all did', () => {
    assert.deepEqual(coevolveOf({ ...base, status: 'terminated', unfinished }).unfinished, unfinished);
    assert.equal('unfinished' in coevolveOf(base), false);
  });

  it("the ATIF export keeps the environment's agent timeout apart from the run's wall clock", () => {
    assert.equal(coevolveOf({ ...base, status: 'truncated', truncationReason: 'agent_timeout' }).truncation_reason, 'agent_timeout');
    assert.equal(coevolveOf({ ...base, status: 'truncated', truncationReason: 'wall_clock' }).truncation_reason, 'wall_clock');
  });

  it('the reader opens records with and without `unfinished`, and refuses one it could not show', () => {
    assert.ok('record' in checkRolloutRecord(JSON.parse(JSON.stringify(base))), 'a record written before the field');
    assert.ok('record' in checkRolloutRecord(JSON.parse(JSON.stringify({ ...base, unfinished }))));
    assert.ok('record' in checkRolloutRecord(JSON.parse(JSON.stringify({ ...base, status: 'truncated', truncationReason: 'agent_timeout' }))));
    const bad = checkRolloutRecord(JSON.parse(JSON.stringify({ ...base, unfinished: { step: 'rating', reason: 'wall_clock' } })));
    assert.ok('problem' in bad && /unfinished\.note/.test(bad.problem), JSON.stringify(bad));
  });
});
