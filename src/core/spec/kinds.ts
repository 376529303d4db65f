import type { z } from 'zod';
import { agentConfigSchema, type AgentConfig } from './agent.js';
import { environmentSpecSchema, type EnvironmentSpec } from './environment.js';
import { runConfigSchema, type RunConfig } from './run.js';
import { userProfileSchema, type UserProfile } from './user.js';

export const specKinds = ['Environment', 'User', 'Agent', 'Run'] as const;
export type SpecKind = (typeof specKinds)[number];

/** What each kind parses to, so typed loaders can narrow a parse result by kind. */
export interface SpecOfKind {
  Environment: EnvironmentSpec;
  User: UserProfile;
  Agent: AgentConfig;
  Run: RunConfig;
}
export type AnySpec = SpecOfKind[SpecKind];

export interface SpecKindInfo {
  kind: SpecKind;
  /** File-name suffix that marks the kind; editors and `coevolve validate <dir>` find specs by it. */
  suffix: string;
  /** File name of the generated JSON Schema in environments/schemas/. */
  schemaFile: string;
  schema: z.ZodType;
}

export const specKindInfo: Record<SpecKind, SpecKindInfo> = {
  Environment: { kind: 'Environment', suffix: '.env.yaml', schemaFile: 'environment.schema.json', schema: environmentSpecSchema },
  User: { kind: 'User', suffix: '.user.yaml', schemaFile: 'user.schema.json', schema: userProfileSchema },
  Agent: { kind: 'Agent', suffix: '.agent.yaml', schemaFile: 'agent.schema.json', schema: agentConfigSchema },
  Run: { kind: 'Run', suffix: '.run.yaml', schemaFile: 'run.schema.json', schema: runConfigSchema },
};

export const specSuffixes: readonly string[] = specKinds.map((k) => specKindInfo[k].suffix);

/** The kind a file name announces (`*.env.yaml` → Environment), or undefined for any other name. */
export function kindFromFileName(file: string): SpecKind | undefined {
  const name = file.toLowerCase();
  return specKinds.find((k) => name.endsWith(specKindInfo[k].suffix) || name.endsWith(specKindInfo[k].suffix.replace(/yaml$/, 'yml')));
}

export function isSpecFileName(file: string): boolean {
  return kindFromFileName(file) !== undefined;
}

export function isSpecKind(value: unknown): value is SpecKind {
  return typeof value === 'string' && (specKinds as readonly string[]).includes(value);
}
