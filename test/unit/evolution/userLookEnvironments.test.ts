import assert from 'node:assert/strict';
import { userLookEnvironments } from '../../../src/core/evolution/userLookEnvironments.js';
import { environmentSpecSchema, type EnvironmentSpec } from '../../../src/core/spec/environment.js';

/** An environment of `family` whose user holds `required` facts the task needs. */
function env(id: string, family: string, required: number): EnvironmentSpec {
  const facts = Array.from({ length: 3 }, (_, i) => ({ id: `f${i}`, text: `fact ${i} is \`v${i}\``, keywords: [`k${i}`] }));
  return environmentSpecSchema.parse({
    apiVersion: 'coevolve/v1', kind: 'Environment', id, title: id, family, instruction: 'do it',
    verifier: { script: 'true' }, oracle: { script: 'true' },
    user: { request: 'please', goal: 'done', facts, requiredFacts: facts.slice(0, required).map((f) => f.id) },
  });
}

describe('user looks: the environments a user child plays against its parent', () => {
  const parentEnv = env('lt-parent', 'log-triage', 2);
  const predicted = new Map<string, number>([['csv-a', 0.9], ['csv-b', 0.6], ['cfg-a', 0.3], ['cfg-b', 0.8], ['fo-a', 0.95], ['lt-other', 0.99], ['fo-frozen', 0.99]]);
  const active = [parentEnv, env('lt-other', 'log-triage', 3), env('csv-a', 'csv-report', 1), env('csv-b', 'csv-report', 2), env('cfg-a', 'config-repair', 3), env('cfg-b', 'config-repair', 3), env('fo-a', 'file-organize', 0), env('fo-frozen', 'file-organize', 3)];
  const pick = (others: number, frozen = new Set(['fo-frozen'])): string[] =>
    userLookEnvironments({ parentEnv, active, frozen, predicted: (id) => predicted.get(id) ?? 0.5, others }).map((e) => e.id);

  it('plays the parent pair environment first, then other families where the user matters most: most needed facts, then highest parent success', () => {
    // config-repair needs 3 facts (cfg-b: the parent wins more often there than on cfg-a), csv-report 2 (csv-b beats
    // csv-a, which needs only one, although the parent wins more on csv-a); file-organize's open one needs nothing.
    assert.deepEqual(pick(2), ['lt-parent', 'cfg-b', 'csv-b']);
    assert.deepEqual(pick(3), ['lt-parent', 'cfg-b', 'csv-b', 'fo-a']);
  });

  it('never plays a frozen held-out environment, a second environment of a family, or the parent family again', () => {
    const all = pick(10);
    assert.deepEqual(all, ['lt-parent', 'cfg-b', 'csv-b', 'fo-a']);
    assert.ok(!all.includes('fo-frozen') && !all.includes('lt-other'));
    // Unfrozen, the file-organize environment that needs three facts (and the parent wins most) comes first.
    assert.deepEqual(pick(3, new Set()), ['lt-parent', 'fo-frozen', 'cfg-b', 'csv-b']);
  });

  it('ties go by id, so the choice is the same at any order of the archive', () => {
    const tied = (order: EnvironmentSpec[]): string[] => userLookEnvironments({ parentEnv, active: order, frozen: new Set(), predicted: () => 0.5, others: 2 }).map((e) => e.id);
    const forward = tied(active), backward = tied([...active].reverse());
    assert.deepEqual(forward, backward);
    assert.deepEqual(forward, ['lt-parent', 'cfg-a', 'fo-frozen']);
  });

  it('with no other family in the archive, a look is the parent pair environment alone', () => {
    assert.deepEqual(userLookEnvironments({ parentEnv, active: [parentEnv, env('lt-x', 'log-triage', 3)], frozen: new Set(), predicted: () => 0.9, others: 2 }).map((e) => e.id), ['lt-parent']);
  });
});
