// How a rollout ended travels with it: the ATIF and chat JSONL exports carry the truncation reason and any step after
// the episode that did not finish (a record without them exports as before), the dataset card says where they are when
// some rollout has them, and the run reader opens records with or without them (older runs) but not malformed ones.
import assert from 'node:assert/strict';
import type { RolloutRecord } from '../../../src/core/rollout/trajectory.js';
import { toAtifTrajectory } from '../../../src/datasets/atifExport.js';
import { toChatJsonl } from '../../../src/datasets/chatJsonl.js';
import { endingsCardSection } from '../../../src/datasets/datasetCard.js';
import { rolloutMetadata } from '../../../src/datasets/rolloutMetadata.js';
import { checkRolloutRecord } from '../../../src/store/records.js';
import { longRollout } from '../../fixtures/makeRun.js';

const base = longRollout(4);
const coevolveOf = (r: RolloutRecord): Record<string, unknown> => {
  const metadata = rolloutMetadata(r, { env: undefined, lineageRoot: r.envId, split: 'train', labels: [] });
  return (toAtifTrajectory(r, metadata).extra as { coevolve: Record<string, unknown> }).coevolve;
};
const chatMetadataOf = (r: RolloutRecord): Record<string, unknown> => {
  const metadata = rolloutMetadata(r, { env: undefined, lineageRoot: r.envId, split: 'train', labels: [] });
  return toChatJsonl(r, undefined, metadata, { weights: false }).metadata as unknown as Record<string, unknown>;
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

  it('the chat JSONL metadata carries the truncation reason and the unfinished step beside the status', () => {
    const truncated = chatMetadataOf({ ...base, status: 'truncated', truncationReason: 'agent_timeout' });
    assert.equal(truncated.status, 'truncated');
    assert.equal(truncated.truncation_reason, 'agent_timeout');
    assert.deepEqual(chatMetadataOf({ ...base, status: 'terminated', unfinished }).unfinished, unfinished);
    const keys = Object.keys(chatMetadataOf({ ...base, status: 'truncated', truncationReason: 'wall_clock', unfinished }));
    assert.deepEqual(keys.slice(keys.indexOf('status'), keys.indexOf('status') + 3), ['status', 'truncation_reason', 'unfinished'], 'read next to the status');
  });

  it('a record without them (an older run) exports the same chat JSONL metadata as before', () => {
    const before = { rollout_id: base.id, run_id: base.runId, split: 'train', environment: { id: base.envId, lineage_root: base.envId }, user: { id: base.userId }, agent: { id: base.agentId, role: base.roles.agent }, generation: base.generation, trial: base.trial, hint: base.hint, status: base.status, success: base.success, reward: base.rewards, tags: [...new Set(base.tags)] };
    assert.equal(JSON.stringify(chatMetadataOf(base)), JSON.stringify(before));
  });

  it('the dataset card names the fields and counts them only when some exported rollout has them', () => {
    assert.deepEqual(endingsCardSection('chat-jsonl', { truncated: {}, unfinished: {} }), []);
    const lines = endingsCardSection('chat-jsonl', { truncated: { agent_timeout: 2, turns: 1 }, unfinished: { 'rating: wall_clock': 1 } }).join('\n');
    assert.match(lines, /`metadata\.truncation_reason`/);
    assert.match(lines, /`metadata\.unfinished`/);
    assert.match(lines, /2: agent_timeout/);
    assert.match(lines, /1: rating: wall_clock/);
    assert.match(endingsCardSection('atif', { truncated: { context: 1 }, unfinished: {} }).join('\n'), /`extra\.coevolve\.truncation_reason`/);
  });

  it('the reader opens records with and without `unfinished`, and refuses one it could not show', () => {
    assert.ok('record' in checkRolloutRecord(JSON.parse(JSON.stringify(base))), 'a record written before the field');
    assert.ok('record' in checkRolloutRecord(JSON.parse(JSON.stringify({ ...base, unfinished }))));
    assert.ok('record' in checkRolloutRecord(JSON.parse(JSON.stringify({ ...base, status: 'truncated', truncationReason: 'agent_timeout' }))));
    const bad = checkRolloutRecord(JSON.parse(JSON.stringify({ ...base, unfinished: { step: 'rating', reason: 'wall_clock' } })));
    assert.ok('problem' in bad && /unfinished\.note/.test(bad.problem), JSON.stringify(bad));
  });
});
