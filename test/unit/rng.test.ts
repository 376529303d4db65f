import assert from 'node:assert/strict';
import { createRng, rolloutRng } from '../../src/core/ports/rng.js';

describe('rng', () => {
  it('is a function of the seed only', () => {
    const a = createRng(42), b = createRng(42);
    const xs = Array.from({ length: 5 }, () => a.next());
    assert.deepEqual(xs, Array.from({ length: 5 }, () => b.next()));
    assert.ok(xs.every((x) => x >= 0 && x < 1));
  });
  it('derives rollout streams from identity, not order', () => {
    const first = rolloutRng(7, 'g0/p1/t0').next();
    rolloutRng(7, 'g0/p2/t0').next();
    assert.equal(rolloutRng(7, 'g0/p1/t0').next(), first);
    assert.notEqual(rolloutRng(7, 'g0/p2/t0').next(), first);
  });
  it('shuffles into a permutation', () => {
    const s = createRng(1).shuffle([1, 2, 3, 4, 5, 6]);
    assert.deepEqual([...s].sort(), [1, 2, 3, 4, 5, 6]);
  });
});
