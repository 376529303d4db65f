import assert from 'node:assert/strict';
import { z } from 'zod';
import { extractJson, formatPath, jsonSchemaOf, validate } from '../../../src/core/roles/llm/structuredOutput.js';
import { environmentSpecSchema } from '../../../src/core/spec/environment.js';

describe('structured output checks', () => {
  const schema = z.strictObject({ goalMet: z.boolean(), satisfaction: z.number().int().min(1).max(5) });

  it('finds the object inside fences or prose and repairs sloppy JSON', () => {
    assert.deepEqual(extractJson('```json\n{"a": 1}\n```'), { ok: true, value: { a: 1 } });
    assert.deepEqual(extractJson('Here it is: {"a": 1,} hope that helps'), { ok: true, value: { a: 1 } });
    assert.equal(extractJson('no json').ok, false);
    assert.equal(extractJson('').ok, false);
  });

  it('reports zod problems with their paths', () => {
    const r = validate('{"goalMet": "yes", "satisfaction": 9, "extra": 1}', schema);
    assert.equal(r.ok, false);
    assert.ok(!r.ok);
    assert.deepEqual(r.problems.map((p) => p.split(':')[0]).sort(), ['(root)', 'goalMet', 'satisfaction']);
    assert.equal(formatPath(['user', 'facts', 0, 'id']), 'user.facts[0].id');
  });

  it('adds the caller\'s own checks after zod passes', () => {
    const r = validate('{"goalMet": true, "satisfaction": 5}', schema, (v) => (v.satisfaction === 5 ? ['satisfaction: too good to be true'] : []));
    assert.deepEqual(r, { ok: false, problems: ['satisfaction: too good to be true'] });
  });

  it('derives a JSON Schema for the environment spec from the zod source', () => {
    const s = jsonSchemaOf(environmentSpecSchema);
    assert.equal(s.type, 'object');
    assert.ok(!('$schema' in s));
    assert.ok((s.properties as Record<string, unknown>).verifier);
  });
});
