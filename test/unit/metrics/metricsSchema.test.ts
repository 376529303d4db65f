import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generationMetricsV2Fields, parseGenerationMetrics } from '../../../src/core/metrics/metricsSchema.js';
import { outputJsonSchemaFiles } from '../../../src/core/spec/jsonSchema.js';

// A generation file written by a version-1 run (the demo before the measured frontier), kept verbatim.
const v1 = JSON.parse(readFileSync(join(__dirname, '../../fixtures/metrics-v1-g0001.json'), 'utf8')) as Record<string, unknown>;

describe('generation metrics schema (versioned)', () => {
  it('opens a version-1 file and lists every version-2 field it lacks', () => {
    const parsed = parseGenerationMetrics(v1, 'g0001.json');
    assert.equal(parsed.version, 1);
    assert.equal(parsed.metrics.index, 1);
    assert.deepEqual([...parsed.missing].sort(), Object.keys(generationMetricsV2Fields).sort());
  });

  it('refuses a newer version, and a malformed file naming the field', () => {
    assert.throws(() => parseGenerationMetrics({ ...v1, metricsVersion: 3 }, 'g.json'), /metrics version 3 is newer than this Coevolve reads \(2\)/);
    assert.throws(() => parseGenerationMetrics({ ...v1, successRate: 'high' }, 'g.json'), /g\.json: successRate:/);
    assert.throws(() => parseGenerationMetrics({ ...v1, metricsVersion: 2 }, 'g.json'), /g\.json: archiveBand:/);
  });

  it('keeps fields a later minor addition wrote instead of stripping them', () => {
    const parsed = parseGenerationMetrics({ ...v1, somethingNew: 1 });
    assert.equal((parsed.metrics as Record<string, unknown>).somethingNew, 1);
  });

  it('has committed JSON Schemas for metrics and eval results', () => {
    for (const { name, text } of outputJsonSchemaFiles()) {
      const file = join(__dirname, '../../../environments/schemas', name);
      assert.ok(existsSync(file), `${name} is missing`);
      assert.equal(readFileSync(file, 'utf8'), text, `${name} is stale (npm run build regenerates it)`);
    }
  });
});
