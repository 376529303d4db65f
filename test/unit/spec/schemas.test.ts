import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { specJsonSchema, specJsonSchemaFiles } from '../../../src/core/spec/jsonSchema.js';

const schemaDir = join(__dirname, '../../../environments/schemas');

describe('JSON Schemas generated from the zod source', () => {
  it('the committed files in environments/schemas are up to date (regenerate with `npm run build` or `coevolve schema`)', () => {
    for (const { name, text } of specJsonSchemaFiles()) {
      const file = join(schemaDir, name);
      assert.ok(existsSync(file), `${name} is missing`);
      assert.equal(readFileSync(file, 'utf8'), text, `${name} is stale`);
    }
  });

  it('describe fields and accept what people write (defaults optional, unknown keys refused)', () => {
    const env = specJsonSchema('Environment') as {
      title: string; required: string[]; additionalProperties: boolean;
      properties: Record<string, { description?: string }>;
    };
    assert.match(env.title, /Environment/);
    assert.deepEqual([...env.required].sort(), ['apiVersion', 'id', 'instruction', 'kind', 'oracle', 'title', 'user', 'verifier']);
    assert.equal(env.additionalProperties, false);
    for (const [key, prop] of Object.entries(env.properties)) assert.ok(prop.description, `${key} has a description`);
  });
});
