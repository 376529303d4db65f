import assert from 'node:assert/strict';
import { createRng } from '../../../src/core/ports/rng.js';
import { environmentSpecSchema } from '../../../src/core/spec/environment.js';
import type { EnvironmentSpec } from '../../../src/core/spec/environment.js';
import { builtinFamilies, findFamily } from '../../../src/builtin/families/registry.js';
import { builtinSource, contentSeedOf, difficultyOf, knobNames, resolveKnobs } from '../../../src/builtin/families/family.js';
import { applyEnvironmentMove, createBuiltinDesigner, environmentMoves, mutateEnvironment } from '../../../src/builtin/designer.js';
import { availableMoves, makeEnvironmentChild } from '../../../src/core/evolution/moves.js';

describe('built-in task families', () => {
  it('has at least four families', () => {
    assert.ok(builtinFamilies.length >= 4);
    assert.deepEqual(new Set(builtinFamilies.map((f) => f.name)).size, builtinFamilies.length);
  });

  it('takes levels between whole ones knob by knob: each knob its nearest value, so 1.75 is two steps above level 1', () => {
    const family = findFamily('log-triage')!;
    const one = resolveKnobs(family, { level: 1 });
    const mid = resolveKnobs(family, { level: 1.75 });
    const two = resolveKnobs(family, { level: 2 });
    assert.deepEqual(one, { horizon: 1, hiddenState: 1, feedback: 2, distractors: 0, strictness: 0 });
    assert.deepEqual(mid, { horizon: 2, hiddenState: 1, feedback: 2, distractors: 1, strictness: 0 });
    assert.deepEqual(two, { horizon: 2, hiddenState: 2, feedback: 1, distractors: 2, strictness: 1 });
    const d = (k: typeof one): number => difficultyOf(family, k);
    assert.ok(d(one) < d(mid) && d(mid) < d(two), `design difficulty ${d(one)} < ${d(mid)} < ${d(two)}`);
    assert.ok(environmentSpecSchema.safeParse(family.generate({ level: 1.75 }, createRng(1))).success);
    for (const bad of [0.5, Number.NaN, family.maxLevel + 0.5]) assert.throws(() => resolveKnobs(family, { level: bad }), /out of range; use a number 1\.\.5/);
  });

  for (const family of builtinFamilies) {
    describe(family.name, () => {
      it('generates valid specs at every level, with hidden facts the user knows', () => {
        for (let level = 1; level <= family.maxLevel; level++) {
          const spec = family.generate({ level }, createRng(level));
          environmentSpecSchema.parse(spec);
          assert.equal(spec.family, family.name);
          assert.equal(contentSeedOf(spec) !== undefined && spec.provenance.source, builtinSource(family.name, contentSeedOf(spec)!));
          // Design difficulty is computed from the knobs for seeds and children alike.
          assert.equal(spec.difficulty, difficultyOf(family, resolveKnobs(family, { level })));
          assert.ok(spec.hint && spec.oracle.script && spec.verifier.script);
          assert.ok(spec.user.requiredFacts.length >= 1, 'at least one fact is hidden');
          for (const id of spec.user.requiredFacts) {
            const fact = spec.user.facts.find((f) => f.id === id);
            assert.ok(fact && fact.keywords.length > 0);
            assert.ok(!spec.instruction.includes(fact.text), `hidden fact ${id} must not be in the instruction`);
          }
          assert.deepEqual(Object.keys(spec.knobs).sort(), [...knobNames].sort());
        }
      });

      it('is deterministic: same seed, same spec; another seed, another id and content', () => {
        const a = family.generate({ level: 3 }, createRng(42));
        const b = family.generate({ level: 3 }, createRng(42));
        const c = family.generate({ level: 3 }, createRng(43));
        assert.deepEqual(a, b);
        assert.notEqual(a.id, c.id);
        assert.ok(a.id.startsWith(`${family.name}-`));
      });

      it('harder and easier operators move one knob one step and keep the spec valid', () => {
        const parent = family.generate({ level: 3 }, createRng(7));
        for (const knob of knobNames) {
          for (const direction of ['harder', 'easier'] as const) {
            const p = mutateEnvironment(parent, direction, knob, 2, createRng(`${knob}/${direction}`));
            assert.ok(p.ok, `${direction}:${knob} at level 3 should be possible`);
            if (!p.ok) continue;
            environmentSpecSchema.parse(p.child);
            assert.equal(p.operator, `${direction}:${knob}`);
            assert.deepEqual(p.child.lineage, { parent: parent.id, operator: `${direction}:${knob}`, generation: 2 });
            assert.notEqual(p.child.id, parent.id);
            const moved = knobNames.filter((k) => p.child.knobs[k] !== parent.knobs[k]);
            assert.deepEqual(moved, [knob]);
            const def = family.knobs[knob];
            const harder = (p.child.knobs[knob] as number) > (parent.knobs[knob] as number) === (def.harder === 'up');
            assert.equal(harder, direction === 'harder');
          }
        }
      });
    });
  }

  describe('a child is a small edit of its parent (same content seed, one change)', () => {
    const fileMap = (spec: EnvironmentSpec): Map<string, string> => new Map(spec.sandbox.files.map((f) => [f.path, f.content]));
    const changedFiles = (a: EnvironmentSpec, b: EnvironmentSpec): string[] => {
      const fa = fileMap(a), fb = fileMap(b);
      return [...new Set([...fa.keys(), ...fb.keys()])].filter((p) => fa.get(p) !== fb.get(p)).sort();
    };
    const changedLines = (a: string, b: string): number => {
      const la = a.split('\n'), lb = b.split('\n');
      return la.filter((l) => !lb.includes(l)).length + lb.filter((l) => !la.includes(l)).length;
    };
    for (const family of builtinFamilies) {
      it(`${family.name}: every single-step move keeps the facts and changes only what its knob controls`, () => {
        for (let seed = 1; seed <= 4; seed++) {
          for (const level of [1, 3, 5]) {
            const parent = family.generate({ level, contentSeed: seed * 101 }, createRng(0));
            for (const move of environmentMoves(parent)) {
              const p = applyEnvironmentMove(parent, move, 1);
              assert.ok(p.ok, `${parent.id} ${move.operator}`);
              if (!p.ok) continue;
              const child = p.child;
              const where = `${parent.id} ${move.operator}`;
              assert.equal(contentSeedOf(child), contentSeedOf(parent), where);
              assert.deepEqual(child.user.facts, parent.user.facts, `${where}: same facts`);
              assert.equal(child.oracle.script === parent.oracle.script || ['horizon'].includes(move.knob), true, `${where}: same oracle unless the steps change`);
              const files = changedFiles(parent, child);
              const instructionLines = changedLines(parent.instruction, child.instruction);
              if (move.knob === 'distractors') {
                // One decoy: a file, or a folder of files (file-organize's pinned folders); nothing else changes.
                const units = new Set(files.map((f) => (files.length === 1 ? f : f.replace(/\/[^/]*$/, ''))));
                assert.equal(units.size, 1, `${where}: one decoy added or removed (${files.join(', ')})`);
                assert.ok(files.every((f) => !fileMap(parent).has(f) || !fileMap(child).has(f)), `${where}: no input rewritten`);
                assert.equal(instructionLines, 0, where);
              } else if (move.knob === 'feedback') {
                assert.deepEqual(files, ['check.sh'], where);
                assert.ok(instructionLines <= 1, where);
              } else if (move.knob === 'hiddenState') {
                assert.deepEqual(files, [], where);
                assert.equal(instructionLines, 2, `${where}: one fact sentence replaced by its vague form`);
                assert.equal(Math.abs(child.user.requiredFacts.length - parent.user.requiredFacts.length), 1, where);
              } else if (move.knob === 'strictness') {
                assert.deepEqual(files, [], where);
                assert.equal(instructionLines, 0, where);
                assert.notEqual(child.verifier.script, parent.verifier.script, where);
              } else {
                assert.ok(files.every((f) => f === 'check.sh' || !fileMap(parent).has(f) || !fileMap(child).has(f)), `${where}: horizon adds or drops files, never rewrites the inputs (${files.join(', ')})`);
                assert.ok(instructionLines >= 1 && instructionLines <= 2, `${where}: one step sentence added, dropped or replaced`);
              }
            }
          }
        }
      });
    }
  });

  it('lists every single-step move of a parent, harder and easier, within the knob bounds', () => {
    const family = findFamily('csv-report')!;
    const parent = family.generate({ level: 1 }, createRng(3));
    const moves = environmentMoves(parent);
    for (const m of moves) {
      const def = family.knobs[m.knob];
      assert.equal(Math.abs(m.to - m.from), 1);
      assert.ok(m.to >= def.min && m.to <= def.max);
      assert.equal(m.operator, `${m.direction}:${m.knob}`);
    }
    // Level 1 is the easiest end of every knob but hiddenState (1 of 0..3): only it can be eased.
    assert.deepEqual(moves.filter((m) => m.direction === 'easier').map((m) => m.knob), ['hiddenState']);
    assert.equal(moves.filter((m) => m.direction === 'harder').length, knobNames.length);
    assert.deepEqual(environmentMoves({ ...parent, family: 'custom' }), []);
  });

  it('the designer role lists its moves on the port and makes the child of a chosen one', async () => {
    const designer = createBuiltinDesigner();
    const parent = findFamily('file-organize')!.generate({ level: 3 }, createRng(6));
    const moves = availableMoves(designer, parent);
    assert.deepEqual(moves.map((m) => m.id), environmentMoves(parent).map((m) => m.operator));
    const move = moves.find((m) => m.id === 'easier:distractors')!;
    assert.deepEqual([move.direction, move.knob, move.from, move.to], ['easier', 'distractors', parent.knobs.distractors, parent.knobs.distractors! - 1]);
    const p = await makeEnvironmentChild(designer, { parent, move, stats: { successRate: 0.1, regret: 0, plays: 4, meanReward: 0.1 }, generation: 2, rng: createRng(1) });
    assert.ok(p.ok);
    if (p.ok) assert.deepEqual([p.child.lineage.operator, p.child.knobs.distractors, contentSeedOf(p.child)], ['easier:distractors', parent.knobs.distractors! - 1, contentSeedOf(parent)]);
    const bad = await designer.apply!({ parent, move: { id: 'sideways', direction: 'harder', description: '' }, generation: 2, rng: createRng(1) });
    assert.equal(bad.ok, false);
  });

  it('each listed move says how many steps of it the knob range allows (the controller never plans past the bound)', () => {
    const family = findFamily('log-triage')!;
    const parent = family.generate({ level: 2 }, createRng(4));
    const moves = availableMoves(createBuiltinDesigner(), parent);
    const steps = Object.fromEntries(moves.map((m) => [m.id, m.maxSteps]));
    // Level 2 is h2 s2 f1 d2 t1: distractors 0..6, hiddenState 0..3, horizon 1..4, feedback 0..2 (harder = down), strictness 0..2.
    assert.deepEqual(steps, {
      'harder:horizon': 2, 'easier:horizon': 1, 'harder:hiddenState': 1, 'easier:hiddenState': 2, 'harder:feedback': 1, 'easier:feedback': 1,
      'harder:distractors': 4, 'easier:distractors': 2, 'harder:strictness': 1, 'easier:strictness': 1,
    });
  });

  it('refuses to edit a built-in spec without a recorded content seed unless given an rng', () => {
    const parent = findFamily('log-triage')!.generate({ level: 2 }, createRng(4));
    const old = { ...parent, provenance: { ...parent.provenance, source: 'builtin:log-triage' } };
    const refused = applyEnvironmentMove(old, { direction: 'harder', knob: 'horizon' }, 1);
    assert.equal(refused.ok, false);
    if (!refused.ok) assert.match(refused.reason, /no content seed/);
    assert.ok(applyEnvironmentMove(old, { direction: 'harder', knob: 'horizon' }, 1, createRng(5)).ok);
  });

  it('refuses a move past a bound with a reason that names the knob and the range', () => {
    const family = findFamily('log-triage')!;
    const top = family.generate({ level: family.maxLevel }, createRng(1));
    const p = mutateEnvironment(top, 'harder', 'horizon', 1, createRng(2));
    assert.equal(p.ok, false);
    if (!p.ok) assert.match(p.reason, /horizon .*already at its hardest bound.*range 1\.\.4/);
    const unknown = mutateEnvironment({ ...top, family: 'custom' }, 'easier', undefined, 1, createRng(2));
    assert.equal(unknown.ok, false);
  });
});
