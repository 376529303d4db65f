import { z } from 'zod';
import { specApiVersion } from './common.js';
import { evalResultSchema, generationMetricsSchema } from '../metrics/metricsSchema.js';
import { specKindInfo, specKinds, type SpecKind } from './kinds.js';

/**
 * The JSON Schema of one spec kind, generated from the zod source so the editor (completion, hover) and the
 * runtime share one definition. `io: 'input'` describes what a person writes: fields with defaults are optional.
 * Cross-field rules (refinements) cannot be expressed in JSON Schema; `coevolve validate` checks them.
 */
export function specJsonSchema(kind: SpecKind): Record<string, unknown> {
  const generated = z.toJSONSchema(specKindInfo[kind].schema, { io: 'input', target: 'draft-2020-12' }) as Record<string, unknown>;
  const { $schema, ...rest } = generated;
  return { $schema, title: `Coevolve ${kind} (${specApiVersion})`, ...rest };
}

export interface SchemaFile {
  /** File name inside the schemas folder, e.g. `environment.schema.json`. */
  name: string;
  text: string;
}

/** Every schema as the exact text written to disk, so a test can tell when the committed files are stale. */
export function specJsonSchemaFiles(): SchemaFile[] {
  return specKinds.map((kind) => ({ name: specKindInfo[kind].schemaFile, text: `${JSON.stringify(specJsonSchema(kind), null, 2)}\n` }));
}

/** The formats Coevolve writes and viewers read: per-generation metrics and `coevolve eval` results. */
export function outputJsonSchemaFiles(): SchemaFile[] {
  const of = (title: string, schema: z.ZodType): string => {
    const generated = z.toJSONSchema(schema, { io: 'output', target: 'draft-2020-12' }) as Record<string, unknown>;
    const { $schema, ...rest } = generated;
    return `${JSON.stringify({ $schema, title, ...rest }, null, 2)}\n`;
  };
  return [
    { name: 'generation-metrics.schema.json', text: of('Coevolve generation metrics (version 2)', generationMetricsSchema) },
    { name: 'eval-result.schema.json', text: of('Coevolve eval result (version 1)', evalResultSchema) },
  ];
}
