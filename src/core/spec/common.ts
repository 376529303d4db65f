import { z } from 'zod';

/** The one schema version every spec and run file declares; bump with a migration in `migrate.ts`. */
export const specApiVersion = 'coevolve/v1';

export const idSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[a-z0-9][a-z0-9._-]*$/, 'ids are lowercase letters, digits, ".", "_" or "-", starting with a letter or digit')
  .describe('Stable identifier, unique within its kind (lowercase, digits, ".", "_", "-").');

/**
 * A path inside the sandbox workspace or the spec's folder. Absolute paths and `..` are refused so that a spec
 * can never reach outside the workspace it was written for.
 */
export const relativePathSchema = z
  .string()
  .min(1)
  .max(512)
  .refine((p) => !p.startsWith('/') && !/^[a-zA-Z]:[\\/]/.test(p), { message: 'path must be relative (no leading "/" or drive letter)' })
  .refine((p) => !p.split(/[\\/]/).includes('..'), { message: 'path must stay inside the workspace (no "..")' })
  .describe('A path relative to the workspace; no leading "/" and no "..".');

export const lineageSchema = z
  .strictObject({
    parent: idSchema.nullable().default(null).describe('Id of the spec this one was derived from, or null for a seed.'),
    operator: z.string().max(1024).nullable().default(null).describe('Mutation operator that produced this spec from its parent (e.g. "harder:horizon").'),
    generation: z.number().int().min(0).default(0).describe('Generation in which this spec was created (0 for seeds).'),
  })
  .describe('Where this spec came from in the evolution.');

export const provenanceSchema = z
  .strictObject({
    source: z.string().max(1024).optional().describe('Where the spec came from: "builtin:<family>", "harbor:<path>", "tau2:<file>#<id>", or "hand-written".'),
    license: z.string().max(128).optional().describe('License of the source material, if imported.'),
    canary: z.string().max(256).optional().describe('Canary string carried from the source so contamination can be detected.'),
    author: z.string().max(256).optional().describe('Who wrote or generated it.'),
  })
  .describe('Origin of the spec, kept through imports and exports.');

export type Lineage = z.infer<typeof lineageSchema>;
export type Provenance = z.infer<typeof provenanceSchema>;
