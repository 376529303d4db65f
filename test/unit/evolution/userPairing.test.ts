import assert from 'node:assert/strict';
import { fallbackEnvironment, pairAdmittedUser } from '../../../src/core/evolution/userPairing.js';

const band = { low: 0.4, high: 0.6 };

describe('user pairing: where an admitted (harder) user child enters the archive', () => {
  it("keeps the parent pair's environment when the child's plays there screen in band", () => {
    const got = pairAdmittedUser([
      { envId: 'parent-env', successes: 4, trials: 8, predicted: 0.45 },
      { envId: 'other', successes: 2, trials: 4, predicted: 0.5 },
    ], band);
    assert.ok(!('refused' in got));
    assert.equal(got.envId, 'parent-env');
    assert.equal(got.moved, false);
    assert.deepEqual(got.screen, { successes: 4, trials: 8 });
  });

  it("moves a child that screens too hard on the parent's environment to a look environment where it is in band", () => {
    // The bench's case: 0/8 on the parent's environment (model 43 %) was refused; the child is simply hard there.
    const got = pairAdmittedUser([
      { envId: 'parent-env', successes: 0, trials: 8, predicted: 0.43 },
      { envId: 'easy-csv', successes: 3, trials: 4, predicted: 0.65 },
      { envId: 'cfg', successes: 2, trials: 4, predicted: 0.55 },
    ], band);
    assert.ok(!('refused' in got));
    assert.equal(got.envId, 'cfg', 'the look environment most likely in band');
    assert.equal(got.moved, true);
    assert.equal(got.predicted, 0.55);
    assert.ok(got.posterior.class !== 'too_hard' && got.posterior.class !== 'too_easy');
  });

  it('refuses when every look environment screens out, naming each', () => {
    const got = pairAdmittedUser([
      { envId: 'parent-env', successes: 0, trials: 8, predicted: 0.3 },
      { envId: 'a', successes: 0, trials: 4, predicted: 0.2 },
      { envId: 'b', successes: 4, trials: 4, predicted: 0.9 },
    ], band);
    assert.ok('refused' in got);
    assert.match(got.refused, /parent-env: 0\/8 screening plays \(model predicted 30%\): too hard/);
    assert.match(got.refused, /b: 4\/4 screening plays \(model predicted 90%\): too easy/);
  });

  it('ignores environments without plays and breaks ties by id', () => {
    const got = pairAdmittedUser([
      { envId: 'parent-env', successes: 0, trials: 8, predicted: 0.35 },
      { envId: 'z', successes: 2, trials: 4, predicted: 0.5 },
      { envId: 'none', successes: 0, trials: 0, predicted: 0.5 },
      { envId: 'y', successes: 2, trials: 4, predicted: 0.5 },
    ], band);
    assert.ok(!('refused' in got));
    assert.equal(got.envId, 'y');
  });

  it('when every look screens out, falls back to the one environment predicted nearest the centre (ties by id)', () => {
    assert.deepEqual(fallbackEnvironment([{ envId: 'a', predicted: 0.2 }, { envId: 'b', predicted: 0.58 }, { envId: 'c', predicted: 0.9 }], 0.5), { envId: 'b', predicted: 0.58 });
    assert.equal(fallbackEnvironment([{ envId: 'z', predicted: 0.25 }, { envId: 'y', predicted: 0.75 }], 0.5)?.envId, 'y');
    assert.equal(fallbackEnvironment([], 0.5), undefined);
  });
});
