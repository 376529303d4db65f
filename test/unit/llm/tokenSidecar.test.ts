import assert from 'node:assert/strict';
import { decodeTokenSidecar, encodeTokenSidecar, type TokenTurn } from '../../../src/core/rollout/tokenSidecar.js';
import { tokenLine } from '../../../src/datasets/tokenExport.js';
import type { RolloutRecord } from '../../../src/core/rollout/trajectory.js';

const turns: TokenTurn[] = [
  { step: 2, promptTokenIds: [1, 2, 3], completionTokenIds: [10, 11], completionLogprobs: [-0.125, -1.0000001] },
  // The next prompt extends the previous prompt + completion with an observation (7, 8).
  { step: 4, promptTokenIds: [1, 2, 3, 10, 11, 7, 8], completionTokenIds: [12], completionLogprobs: [-2.5e-7] },
  // A template that re-rendered history: only a short prefix is shared.
  { step: 6, promptTokenIds: [1, 2, 9, 9], completionTokenIds: [13, 14], completionLogprobs: [-3, -4] },
  { step: 8, completionLogprobs: [-0.5] },
];

describe('token sidecar and trainer-ready token lines', () => {
  it('round-trips exactly, storing only what a prompt adds to the previous prompt and completion', () => {
    const text = encodeTokenSidecar('r-1', turns);
    const lines = text.trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(lines[2], { step: 4, promptShared: 5, promptRest: [7, 8], completion: [12], logprobs: [-2.5e-7] });
    assert.deepEqual(lines[3].promptShared, 2);
    assert.deepEqual(decodeTokenSidecar(text, 'f').turns, turns);
  });

  it('refuses a file cut short or of another format, naming it', () => {
    const text = encodeTokenSidecar('r-1', turns);
    assert.throws(() => decodeTokenSidecar(text.split('\n').slice(0, 3).join('\n'), 'g0001/r-1.tokens.jsonl'), /g0001\/r-1\.tokens\.jsonl: 2 turns, the header says 4/);
    assert.throws(() => decodeTokenSidecar('{"format":"x"}\n', 'f'), /not a token sidecar/);
  });

  it('masks only what the model generated, per turn and over the chained sequence', () => {
    const rollout = { id: 'r-1', rewards: { total: 0.5 }, success: false, models: { agent: { model: 'qwen3' } } } as unknown as RolloutRecord;
    const line = tokenLine(rollout, turns.slice(0, 2));
    assert.deepEqual(line.turns[0]?.loss_mask, [0, 0, 0, 1, 1]);
    assert.deepEqual(line.turns[1]?.loss_mask, [0, 0, 0, 0, 0, 0, 0, 1]);
    assert.deepEqual(line.sequence, {
      input_ids: [1, 2, 3, 10, 11, 7, 8, 12],
      loss_mask: [0, 0, 0, 1, 1, 0, 0, 1],
      logprobs: [null, null, null, -0.125, -1.0000001, null, null, -2.5e-7],
    });
    assert.equal(tokenLine(rollout, turns).sequence, null, 'a re-rendered history is no single sequence');
    assert.equal(tokenLine(rollout, turns).turns[3]?.loss_mask, null, 'logprobs without ids carry no mask');
    assert.equal(line.model, 'qwen3');
  });
});
