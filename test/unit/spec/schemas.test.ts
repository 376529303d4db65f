import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { specJsonSchema, specJsonSchemaFiles } from '../../../src/core/spec/jsonSchema.js';
import { specKinds } from '../../../src/core/spec/kinds.js';

const schemaDir = join(__dirname, '../../../environments/schemas');

describe('JSON Schemas generated from the zod source', () => {
  it('the committed files in environments/schemas are up to date (regenerate with `npm run build` or `coevolve schema`)', () => {
    for (const { name, text } of specJsonSchemaFiles()) {
      const file = join(schemaDir, name);
      assert.ok(existsSync(file), `${name} is missing`);
      assert.equal(readFileSync(file, 'utf8'), text, `${name} is stale`);
    }
  });

  it("agentTimeoutSec says what it ends: the agent's turns, not the rollout (the verifier still judges what it left)", () => {
    type Props = { properties: Record<string, Props & { description?: string }> };
    const env = specJsonSchema('Environment') as Props;
    const described = env.properties.sandbox!.properties.limits!.properties.agentTimeoutSec!.description ?? '';
    assert.match(described, /ends the agent's turns/);
    assert.match(described, /verifier still judges/);
    assert.doesNotMatch(described, /smaller of/, 'it is no limit on the whole rollout');
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

  it('describe every field at every depth, so hover in the editor always has something to say', () => {
    const undescribed: string[] = [];
    const walk = (s: Record<string, unknown> | undefined, at: string): void => {
      if (!s || typeof s !== 'object') return;
      for (const [key, prop] of Object.entries((s.properties ?? {}) as Record<string, Record<string, unknown>>)) {
        if (!prop.description) undescribed.push(`${at}.${key}`);
        walk(prop, `${at}.${key}`);
      }
      walk(s.items as Record<string, unknown> | undefined, `${at}[]`);
      if (typeof s.additionalProperties === 'object') walk(s.additionalProperties as Record<string, unknown>, `${at}{}`);
      for (const key of ['anyOf', 'oneOf', 'allOf']) ((s[key] ?? []) as Record<string, unknown>[]).forEach((o, i) => walk(o, `${at}|${i}`));
    };
    for (const kind of specKinds) walk(specJsonSchema(kind), kind);
    assert.deepEqual(undescribed, []);
  });
});
