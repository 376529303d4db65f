// `coevolve eval` on a run whose final archive holds evolved users: each plays its archive environments against its
// parent on the same fresh rollout ids, and the effect (parent minus child success), its interval, the realism
// verdict and the mean over users come out of real plays. The run is a real one-generation run (process backend);
// two evolved users are then added to its final archive as a run that evolved them would hold them: a twin that
// behaves exactly like its parent (paired plays must then give exactly 0) and a user no agent can wait for (patience
// 3 agent turns: the parent's every success is lost, and it leaves its realism bounds).
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ArchiveSnapshot } from '../../../src/core/evolution/archive.js';
import type { EvalResult } from '../../../src/core/metrics/metricsSchema.js';
import { evalUserEffectId } from '../../../src/core/metrics/evalResult.js';
import type { UserProfile } from '../../../src/core/spec/user.js';
import { runLayout } from '../../../src/store/layout.js';
import { runCli, runCliWatched } from '../../support/cli.js';

const n = 20;

describe('coevolve eval: evolved users against their parents (end to end)', function () {
  this.timeout(2_400_000);
  let out: string;
  let runDir: string;
  let envId: string;
  let result: EvalResult & { dir: string };
  const parentId = 'upfront-planner';
  const twinId = `${parentId}-u00000001`;
  const hardId = `${parentId}-u00000002`;

  before(async function () {
    // A run and 60 eval plays take many minutes under load: each is held to its progress, not to a deadline.
    this.timeout(0);
    out = mkdtempSync(join(tmpdir(), 'coevolve-eval-users-'));
    const run = await runCliWatched(['run', resolve('test/fixtures/runs/tiny.run.yaml'), '--out', out, '--backend', 'process'], { watchDir: out });
    assert.equal(run.code, 0, run.stderr);
    runDir = join(out, readdirSync(out).find((d) => existsSync(join(out, d, 'manifest.json')))!);
    const snapPath = runLayout.artifact(runDir, 'state/g0000.json');
    const snap = JSON.parse(readFileSync(snapPath, 'utf8')) as ArchiveSnapshot;
    const parentPair = snap.pairs.find((p) => p.userId === parentId)!;
    envId = parentPair.envId;
    const parent = JSON.parse(readFileSync(runLayout.user(runDir, parentId), 'utf8')) as UserProfile;
    const child = (id: string, behavior: Partial<UserProfile['behavior']>, operator: string): UserProfile =>
      ({ ...parent, id, persona: { ...parent.persona, name: `${parent.persona.name} ${id.slice(-1)}` }, behavior: { ...parent.behavior, ...behavior }, lineage: { parent: parentId, operator, generation: 0 } });
    writeFileSync(runLayout.user(runDir, twinId), JSON.stringify(child(twinId, {}, 'harder:verbosity')));
    writeFileSync(runLayout.user(runDir, hardId), JSON.stringify(child(hardId, { patience: 3 }, 'harder:less_patience')));
    snap.userIds.push(twinId, hardId);
    // Only the parent's pair stays active beside its children: every active pair costs n plays of its own.
    for (const p of snap.pairs) if (p.userId !== parentId) p.retired = 'too_easy';
    snap.pairs.push({ ...parentPair, pairId: 'p0900', userId: twinId, plays: {} }, { ...parentPair, pairId: 'p0901', userId: hardId, plays: {} });
    writeFileSync(snapPath, JSON.stringify(snap));
    const r = await runCliWatched(['eval', runDir, '--backend', 'process', '--n', String(n), '--json', '--out', join(out, 'evals')], { watchDir: join(out, 'evals') });
    assert.equal(r.code, 0, r.stderr.slice(-2000));
    result = JSON.parse(r.stdout) as EvalResult & { dir: string };
  });
  after(() => rmSync(out, { recursive: true, force: true }));

  it('measures every evolved user of the final archive against its parent, n paired plays per archive environment', () => {
    assert.deepEqual(result.pairs.map((p) => p.userId), [parentId, twinId, hardId]);
    const users = result.userEffect!.users;
    assert.deepEqual(users.map((u) => [u.userId, u.parentId, u.plays]), [[twinId, parentId, n], [hardId, parentId, n]]);
    // Seed users have no parent in the run: they are not evolved users.
    assert.equal(users.some((u) => u.userId === parentId), false);
  });

  it("carries what the run's model believed of each pair for its final agent, and checks it against the fresh plays", () => {
    for (const p of result.pairs) {
      assert.ok(typeof p.predicted === 'number' && p.predicted > 0 && p.predicted < 1, `${p.pairId} predicted ${p.predicted}`);
      assert.ok(typeof p.posteriorMean === 'number' && p.posteriorMean > 0 && p.posteriorMean < 1, `${p.pairId} posterior ${p.posteriorMean}`);
    }
    assert.equal(result.summary.modelCheck!.pairs, result.pairs.length);
    assert.equal(result.summary.evidenceCheck!.pairs, result.pairs.length);
  });
  it('pairs child and parent on the same rollout ids: a child that behaves like its parent differs on no play', () => {
    const twin = result.userEffect!.users.find((u) => u.userId === twinId)!;
    assert.equal(twin.vsParent.mean, 0);
    assert.deepEqual(twin.vsParent.ci, [0, 0]);
    assert.deepEqual(twin.realismViolations, []);
  });

  it('a user who stops waiting after 3 agent turns walks away from nearly every dialogue: it costs its parent\'s successes and is outside its realism bounds', () => {
    const hard = result.userEffect!.users.find((u) => u.userId === hardId)!;
    // It stops waiting in nearly every play (a walk-away share of 0.95 here: a dialogue short enough can still end in
    // time), so the effect is about the parent's success on those ids, which is positive (the tiny run's level-2 task is hard for the starting agent: about 0.1).
    assert.ok(hard.realismViolations.some((v) => /^walkAwayShare (1|0\.[6-9]\d*) outside/.test(v)), hard.realismViolations.join('; '));
    assert.ok(hard.vsParent.mean > 0 && hard.vsParent.ci[1] > 0, JSON.stringify(hard.vsParent));
  });

  it('the mean over users is the mean of their effects, with a t interval', () => {
    const m = result.userEffect!.mean!;
    const effects = result.userEffect!.users.map((u) => u.vsParent.mean);
    assert.equal(m.n, 2);
    assert.ok(Math.abs(m.mean - (effects[0]! + effects[1]!) / 2) < 1e-12);
    assert.ok(m.ci[0] < m.mean && m.mean < m.ci[1]);
  });

  it('refuses to play a user-effect id the run already used', () => {
    const idsPath = runLayout.artifact(runDir, 'ids/g0000.json');
    const ids = JSON.parse(readFileSync(idsPath, 'utf8')) as string[];
    writeFileSync(idsPath, JSON.stringify([...ids, evalUserEffectId(result.seed, hardId, envId, 3)]));
    const r = runCli(['eval', runDir, '--backend', 'process', '--n', String(n), '--json', '--out', join(out, 'evals')]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /1 eval rollout ids were used by the run/);
  });
});
