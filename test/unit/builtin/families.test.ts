import assert from 'node:assert/strict';
import { createRng } from '../../../src/core/ports/rng.js';
import { environmentSpecSchema } from '../../../src/core/spec/environment.js';
import { builtinFamilies, findFamily } from '../../../src/builtin/families/registry.js';
import { knobNames } from '../../../src/builtin/families/family.js';
import { mutateEnvironment } from '../../../src/builtin/designer.js';

describe('built-in task families', () => {
  it('has at least four families', () => {
    assert.ok(builtinFamilies.length >= 4);
    assert.deepEqual(new Set(builtinFamilies.map((f) => f.name)).size, builtinFamilies.length);
  });

  for (const family of builtinFamilies) {
    describe(family.name, () => {
      it('generates valid specs at every level, with hidden facts the user knows', () => {
        for (let level = 1; level <= family.maxLevel; level++) {
          const spec = family.generate({ level }, createRng(level));
          environmentSpecSchema.parse(spec);
          assert.equal(spec.family, family.name);
          assert.equal(spec.provenance.source, `builtin:${family.name}`);
          assert.equal(spec.difficulty, level);
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
