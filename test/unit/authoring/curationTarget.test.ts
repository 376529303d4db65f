import * as assert from 'node:assert/strict';
import { curationSubject, fromRolloutFile } from '../../../src/extension/datasets/curationTarget.js';

describe('datasets: what a curation command is about', () => {
  it('reads Runs tree nodes: a rollout, and a pair as its environment', () => {
    assert.deepEqual(curationSubject({ kind: 'rollout', runDir: '/r', rolloutId: 'g0p0-t0', generation: 0 }), { runDir: '/r', target: { kind: 'rollout', id: 'g0p0-t0' } });
    assert.deepEqual(curationSubject({ kind: 'pair', runDir: '/r', envId: 'env-a', pairId: 'p0' }), { runDir: '/r', target: { kind: 'environment', id: 'env-a' } });
  });

  it('reads the rollout viewer\'s arguments and Dataset view nodes', () => {
    assert.deepEqual(curationSubject('/r', 'g0p0-t1'), { runDir: '/r', target: { kind: 'rollout', id: 'g0p0-t1' } });
    assert.deepEqual(curationSubject('/r', { kind: 'environment', id: 'e' }), { runDir: '/r', target: { kind: 'environment', id: 'e' } });
    assert.deepEqual(curationSubject({ type: 'item', item: { runDir: '/r', target: { kind: 'rollout', id: 'x' } } }), { runDir: '/r', target: { kind: 'rollout', id: 'x' } });
    assert.equal(curationSubject('/r'), undefined);
    assert.equal(curationSubject({ kind: 'generation', runDir: '/r' }), undefined);
  });

  it('falls back to the rollout or environment file open in the editor', () => {
    assert.deepEqual(fromRolloutFile('/w/runs/a-1/rollouts/g0002/g0002-p1-t0.json'), { runDir: '/w/runs/a-1', target: { kind: 'rollout', id: 'g0002-p1-t0' } });
    assert.deepEqual(curationSubject(undefined, undefined, '/w/runs/a-1/environments/env-b.json'), { runDir: '/w/runs/a-1', target: { kind: 'environment', id: 'env-b' } });
    assert.equal(fromRolloutFile('/w/specs/a.env.yaml'), undefined);
  });
});
