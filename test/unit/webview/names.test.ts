import * as assert from 'node:assert/strict';
import { truncationReasons } from '../../../src/core/rollout/trajectory.js';
import { aimLabel, rolloutTabTitle, tagLabel, truncationLabel } from '../../../src/webview/names.js';

describe('rollout tab titles', () => {
  const ref = { generation: 1, rolloutId: 'g0001-p0003-t2', trial: 2, hint: false };
  it('name the generation, the task up to its colon, the user and the play', () => {
    assert.equal(rolloutTabTitle(ref, { title: 'Log triage: ERROR lines 13-15h, 2 step(s)' }, { persona: { name: 'Sam' } }, 'cooperative-novice'), 'g1 Log triage × Sam #2');
    assert.equal(rolloutTabTitle({ ...ref, hint: true }, { title: 'CSV report: price by region' }, { persona: { name: 'Robin' } }, 'upfront-planner'), 'g1 CSV report × Robin hint');
  });
  it('shorten a long title without a colon, and fall back to the archetype without a persona', () => {
    const t = rolloutTabTitle(ref, { title: 'Repair the nginx config of the staging cluster' }, undefined, 'u-terse-ops-g2');
    assert.match(t, /^g1 Repair the nginx config of… × .+ #2$/);
  });
  it('keep the rollout id without the environment (still running, or unreadable)', () => {
    assert.equal(rolloutTabTitle({ generation: 0, rolloutId: 'g0000-p0000-t0' }, undefined, undefined, undefined), 'g0000-p0000-t0');
  });
});

describe('tag labels', () => {
  it('read as words; a tag without underscores is itself', () => {
    assert.equal(tagLabel('verified_before_submit'), 'verified before submit');
    assert.equal(tagLabel('looped'), 'looped');
  });
});

describe('a child\'s aim', () => {
  it('reads as the planned prediction and the screening plays, with a sentence for its tooltip', () => {
    assert.deepEqual(aimLabel({ predicted: 0.4849, screening: { successes: 3, trials: 4 } }), {
      text: 'aimed 48 % · screened 3/4',
      title: 'When this child was planned, the fitted model predicted 48 % success for the agent it was made for; its 4 screening plays before admission passed 3.',
    });
  });
  it('leaves the screening out when the child had none (a user child is judged on paired plays)', () => {
    assert.equal(aimLabel({ predicted: 0.6 }).text, 'aimed 60 %');
  });
});

describe('what truncated a rollout', () => {
  it("tells the environment's agent timeout from the run's wall clock, with the recorded reason in the tooltip", () => {
    const timeout = truncationLabel('agent_timeout');
    const wall = truncationLabel('wall_clock');
    assert.equal(timeout.text, 'truncated: agent timeout');
    assert.match(timeout.title, /^agent_timeout: the environment's own agent timeout/);
    assert.equal(wall.text, 'truncated: wall clock');
    assert.match(wall.title, /^wall_clock: the run's wall clock/);
    assert.match(wall.title, /before 2026-12-07 also record the environment's agent timeout/, 'an old run\'s wall_clock may be either');
  });
  it('has words for every reason the engine writes, and the record allows no reason it never writes', () => {
    // `cancelled` was allowed from the start and never written: a cancelled rollout throws and records nothing.
    assert.deepEqual([...truncationReasons].sort(), ['agent_timeout', 'context', 'tokens', 'turns', 'wall_clock']);
    for (const reason of truncationReasons) assert.notEqual(truncationLabel(reason).text, `truncated: ${reason}`, `${reason} has words`);
  });
  it('shows a reason it does not know as written, and says when none was recorded', () => {
    assert.deepEqual(truncationLabel('some_future_reason'), { text: 'truncated: some_future_reason', title: 'truncation reason "some_future_reason"' });
    assert.equal(truncationLabel('constructor').text, 'truncated: constructor', 'no lookup through the prototype');
    assert.equal(truncationLabel(undefined).text, 'truncated');
  });
});
