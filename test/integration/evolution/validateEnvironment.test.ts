// The validation gate of a new environment on the real bwrap backend: each sandbox it starts (the oracle's, its
// verifier's fresh one, the empty agent's, its verifier's) is stopped exactly once, counted through the sandbox
// port by a recording wrapper around the real backend. In fresh mode the verifier stops the agent's sandbox itself.
import assert from 'node:assert/strict';
import { createRng } from '../../../src/core/ports/rng.js';
import { validateEnvironment } from '../../../src/core/evolution/validateEnvironment.js';
import { builtinFamilies } from '../../../src/builtin/families/registry.js';
import { BwrapBackend } from '../../../src/sandbox/bwrap/bwrapBackend.js';
import { recordingBackend } from '../../support/recordingBackend.js';
import { needService } from '../../support/services.js';
import { bwrapProblem, testLabels } from '../sandbox/support.js';

describe('environment validation (bwrap)', function () {
  this.timeout(60_000);
  const real = new BwrapBackend();

  before(async function () {
    await needService(this, 'bwrap', bwrapProblem);
  });
  after(() => real.dispose());

  it('stops each sandbox it started exactly once, the fresh verifier stopping the agent side itself', async () => {
    const family = builtinFamilies[0]!;
    const spec = family.generate({ level: 1 }, createRng('validate/stops'));
    assert.equal(spec.verifier.mode, 'fresh');
    const backend = recordingBackend(real);
    const v = await validateEnvironment(spec, backend, { labels: testLabels });
    assert.ok(v.oraclePassed && v.emptyFailed, v.details);
    assert.deepEqual(backend.stopsPerSandbox(), [1, 1, 1, 1], "the oracle's sandbox, its verifier's, the empty agent's, its verifier's");
  });
});
