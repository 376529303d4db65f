// The initial population's levels: the seeds at `builtinLevel`, the frozen test and promotion sets at `heldOutLevel`
// (a curriculum that starts below its target still measures the agent on the target), else at the seed level; and
// `builtinKnobs`, set over the seeds' level and nowhere else.
import assert from 'node:assert/strict';
import { loadPopulation } from '../../../src/cli/run/population.js';
import { runConfigSchema } from '../../../src/core/spec/run.js';
import { knobNames } from '../../../src/builtin/families/family.js';
import { builtinFamilies } from '../../../src/builtin/families/registry.js';

const config = (population: Record<string, unknown>) =>
  runConfigSchema.parse({ apiVersion: 'coevolve/v1', kind: 'Run', name: 'levels', seed: 7, population: { builtinFamilies: ['log-triage', 'csv-report'], ...population } });

describe('the initial population', () => {
  it('draws the held-out sets at heldOutLevel and the seeds at builtinLevel', async () => {
    const pop = await loadPopulation(config({ builtinLevel: 1, heldOutLevel: 3 }), process.cwd());
    const seedLevels = pop.environments.map((e) => e.difficulty);
    const heldOut = [...pop.heldOut!.test, ...pop.heldOut!.promotion].map((p) => p.env.difficulty);
    assert.ok(seedLevels.every((d) => d === seedLevels[0]), `seed difficulties ${seedLevels}`);
    assert.ok(heldOut.every((d) => d > seedLevels[0]!), `held-out ${heldOut} above the seeds' ${seedLevels[0]}`);
    // The held-out content is the one a run at that level draws: the same ids as builtinLevel 3 without heldOutLevel.
    const atThree = await loadPopulation(config({ builtinLevel: 3 }), process.cwd());
    assert.deepEqual(pop.heldOut!.test.map((p) => p.env.id), atThree.heldOut!.test.map((p) => p.env.id));
    assert.deepEqual(pop.heldOut!.promotion.map((p) => p.env.id), atThree.heldOut!.promotion.map((p) => p.env.id));
  });

  it('draws the held-out sets at the seed level when heldOutLevel is absent', async () => {
    const pop = await loadPopulation(config({ builtinLevel: 2 }), process.cwd());
    const seedLevel = pop.environments[0]!.difficulty;
    for (const p of [...pop.heldOut!.test, ...pop.heldOut!.promotion]) assert.equal(p.env.difficulty, seedLevel);
  });

  it('sets builtinKnobs over the seeds\' level, keeps their content, and leaves the held-out sets alone', async () => {
    const plain = await loadPopulation(config({ builtinLevel: 1.5, heldOutLevel: 2 }), process.cwd());
    const terse = await loadPopulation(config({ builtinLevel: 1.5, heldOutLevel: 2, builtinKnobs: { feedback: 1 } }), process.cwd());
    for (const [i, env] of terse.environments.entries()) {
      const before = plain.environments[i]!;
      assert.deepEqual(env.knobs, { ...before.knobs, feedback: 1 }, env.id);
      // Same content seed: the seed differs from the level's by the knob alone.
      assert.equal(env.provenance.source, before.provenance.source);
    }
    assert.deepEqual(terse.heldOut!.test.map((p) => p.env.id), plain.heldOut!.test.map((p) => p.env.id));
    assert.deepEqual(terse.heldOut!.promotion.map((p) => p.env.id), plain.heldOut!.promotion.map((p) => p.env.id));
  });

  it('draws the held-out sets without builtinKnobs when heldOutLevel is absent (at the plain seed level)', async () => {
    const plain = await loadPopulation(config({ builtinLevel: 2 }), process.cwd());
    const terse = await loadPopulation(config({ builtinLevel: 2, builtinKnobs: { feedback: 0 } }), process.cwd());
    assert.ok(terse.environments.every((e) => e.knobs.feedback === 0));
    assert.deepEqual(terse.heldOut!.test.map((p) => p.env.id), plain.heldOut!.test.map((p) => p.env.id));
  });

  it('holds each knob to the range the families use, refusing a value past it at its path', () => {
    const shape = runConfigSchema.shape.population.unwrap().shape.builtinKnobs.unwrap().shape;
    assert.deepEqual(Object.keys(shape).sort(), [...knobNames].sort());
    for (const f of builtinFamilies) for (const k of knobNames) {
      const ok = runConfigSchema.safeParse({ apiVersion: 'coevolve/v1', kind: 'Run', name: 'k', population: { builtinFamilies: [f.name], builtinKnobs: { [k]: f.knobs[k].max } } });
      assert.equal(ok.success, true, `${f.name}: ${k} = ${f.knobs[k].max} is in range`);
      const past = runConfigSchema.safeParse({ apiVersion: 'coevolve/v1', kind: 'Run', name: 'k', population: { builtinFamilies: [f.name], builtinKnobs: { [k]: f.knobs[k].max + 1 } } });
      assert.equal(past.success, false, `${f.name}: ${k} = ${f.knobs[k].max + 1} is past the range`);
      assert.deepEqual(past.error!.issues[0]!.path, ['population', 'builtinKnobs', k]);
      const below = runConfigSchema.safeParse({ apiVersion: 'coevolve/v1', kind: 'Run', name: 'k', population: { builtinFamilies: [f.name], builtinKnobs: { [k]: f.knobs[k].min - 1 } } });
      assert.equal(below.success, false, `${f.name}: ${k} = ${f.knobs[k].min - 1} is below the range`);
      assert.deepEqual(below.error!.issues[0]!.path, ['population', 'builtinKnobs', k]);
    }
  });

  it('refuses the values no built-in task has: no output step, a fourth feedback mode, a seventh decoy', () => {
    for (const knobs of [{ horizon: 0 }, { feedback: 3 }, { distractors: 7 }]) {
      const r = runConfigSchema.safeParse({ apiVersion: 'coevolve/v1', kind: 'Run', name: 'k', population: { builtinFamilies: ['log-triage'], builtinKnobs: knobs } });
      assert.equal(r.success, false, JSON.stringify(knobs));
    }
  });

  it('refuses a knob the families do not have, naming it', () => {
    // A population that is valid but for the misspelt knob, so the knob is the only thing refused.
    const r = runConfigSchema.safeParse({ apiVersion: 'coevolve/v1', kind: 'Run', name: 'k', population: { builtinFamilies: ['log-triage'], builtinKnobs: { feedbak: 1 } } });
    assert.equal(r.success, false);
    assert.equal(r.error!.issues.length, 1);
    assert.match(JSON.stringify(r.error!.issues[0]), /feedbak/);
  });
});
