// A rollout whose verification (or the user's rating, on which success depends) the run's wall clock or a context
// overflow cut short says nothing about the agent: it is no outcome, like an infrastructure error, in every place
// that turns rollouts into evidence. It was counted as a failed play (success false) in the pair's evidence, the
// fitted model's cells, screening, the promotion race, the held-out sets, the generation's success rate and
// `coevolve eval`. A cut judging step does not touch success, so that play still counts.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Archive } from '../../../src/core/evolution/archive.js';
import { countOutcomes } from '../../../src/core/evolution/measurementPlays.js';
import { scorePairs } from '../../../src/core/evolution/pairPlays.js';
import { evalPair } from '../../../src/core/metrics/evalResult.js';
import { generationMetrics } from '../../../src/core/metrics/generationMetrics.js';
import type { RolloutRecord } from '../../../src/core/rollout/trajectory.js';
import { cutShort, verdictOf } from '../../../src/core/rollout/verdict.js';
import { environmentSpecSchema } from '../../../src/core/spec/environment.js';
import { parseSpecText } from '../../../src/core/spec/parse.js';
import { userProfileSchema } from '../../../src/core/spec/user.js';
import { fixtureConfig, fixtureRollout } from '../../fixtures/makeRun.js';

const config = fixtureConfig();
const agentId = 'agent-0';

function archive(): Archive {
  const a = new Archive();
  a.addUser(userProfileSchema.parse({ apiVersion: 'coevolve/v1', kind: 'User', id: 'u0', persona: { name: 'u0' } }));
  const seed = parseSpecText(readFileSync(resolve('test/fixtures/specs/valid/minimal.env.yaml'), 'utf8'), 'minimal.env.yaml');
  a.addEnv({ ...environmentSpecSchema.parse(seed.spec), id: 'e0' });
  a.addPair('e0', 'u0', 'seed');
  return a;
}

const pair = { pairId: 'p0000', envId: 'e0', userId: 'u0', source: 'seed' as const };
const play = (trial: number, success: boolean): RolloutRecord => fixtureRollout({ runId: 'r', generation: 0, pair, trial, hint: false, success, steps: [], startedMs: 0, agentId });

/** A play whose `step` was cut: what the engine records (no verifier outcome and/or no rating, success false). */
function cut(trial: number, step: 'verification' | 'rating'): RolloutRecord {
  const r = play(trial, false);
  if (step === 'verification') delete r.verifier;
  else r.verifier = { ...r.verifier!, exitCode: 0, reward: 1 };
  delete r.userRating;
  r.rewards = { ...r.rewards, verifier: step === 'verification' ? 0 : 1, userGoal: 0, satisfaction: 0, rubric: 0, total: 0 };
  r.tags = [];
  r.unfinished = { step, reason: 'wall_clock', note: `the run's wall clock ran out during ${step}` };
  return r;
}

/** A successful play whose judge tagging was cut: success does not depend on the tags. */
function judgingCut(trial: number): RolloutRecord {
  const r = play(trial, true);
  r.tags = [];
  r.unfinished = { step: 'judging', reason: 'wall_clock', note: "the run's wall clock ran out during the judge's tagging" };
  return r;
}

// Two finished plays (one success), two cut before their outcome was known, one cut only in judging (a success).
const records = (): RolloutRecord[] => [play(0, true), play(1, false), cut(2, 'verification'), cut(3, 'rating'), judgingCut(4)];

describe('a play whose verification or rating did not finish is no outcome', () => {
  it("stays out of the pair's evidence and the fitted model's cells", () => {
    const a = archive();
    const { stats } = scorePairs(a, agentId, config, 0, [a.pairs.get('p0000')!], records());
    assert.deepEqual({ plays: stats[0]!.plays, successes: stats[0]!.successes }, { plays: 3, successes: 2 });
    assert.deepEqual(a.pairs.get('p0000')!.plays?.[agentId], { successes: 2, trials: 3 });
    assert.deepEqual(a.ledger.cells[`${agentId}|e0|u0`], { successes: 2, trials: 3 });
  });

  it('counts as no outcome in screening, the promotion race, the held-out sets and user looks (verdictOf)', () => {
    assert.deepEqual(records().map(verdictOf), [true, false, null, null, true]);
    assert.deepEqual(countOutcomes(records().map(verdictOf)), { successes: 2, trials: 3 });
    // Counted apart from errors: the two cut plays, never an errored one.
    assert.deepEqual(records().map(cutShort), [false, false, true, true, false]);
    assert.equal(cutShort({ ...play(5, false), status: 'error' }), false);
  });

  it("stays out of the generation's success rate and reward means", () => {
    const m = generationMetrics({
      index: 0, config, records: records(), pairs: [], envs: [], users: [], archiveEnvs: [],
      children: { proposed: 0, accepted: 0, inBandChildren: 0, rejections: {}, added: 0, retired: 0 },
      agent: { id: agentId, changed: false, genes: {} as never }, durationMs: 1,
    });
    assert.equal(m.successRate, 2 / 3);
    assert.equal(m.verifierSuccessRate, 2 / 3);
    assert.equal(m.errors, 0, 'nor is it an infrastructure error');
    assert.equal(m.unfinished, 2, 'counted apart: the judging cut still has its outcome');
  });

  it('stays out of `coevolve eval` figures, counted apart from errors', () => {
    const p = evalPair({ pairId: 'p0000', envId: 'e0', userId: 'u0', family: 'f', records: records() }, config.band, null);
    assert.deepEqual({ plays: p.plays, successes: p.successes, errors: p.errors, unfinished: p.unfinished }, { plays: 3, successes: 2, errors: 0, unfinished: 2 });
  });
});
