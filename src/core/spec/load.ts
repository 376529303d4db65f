import type { AgentConfig } from './agent.js';
import type { EnvironmentSpec } from './environment.js';
import type { SpecKind, SpecOfKind } from './kinds.js';
import { parseSpecText } from './parse.js';
import type { Problem } from './problems.js';
import type { RunConfig } from './run.js';
import type { UserProfile } from './user.js';

/** A spec that did not parse; carries every problem so callers can show them all, not just the first. */
export class SpecError extends Error {
  constructor(
    readonly file: string,
    readonly problems: Problem[],
  ) {
    const errors = problems.filter((p) => p.severity === 'error');
    const first = errors[0];
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more problem${errors.length > 2 ? 's' : ''}; run \`coevolve validate ${file}\`)` : '';
    super(first ? `${file}:${first.line}:${first.column}: ${first.message}${more}` : `${file}: invalid spec`);
    this.name = 'SpecError';
  }
}

/** Parses a spec of a known kind, throwing a SpecError when it has errors (warnings are ignored). */
export function loadSpec<K extends SpecKind>(kind: K, text: string, file: string): SpecOfKind[K] {
  const parsed = parseSpecText(text, file, kind);
  if (!parsed.spec) throw new SpecError(file, parsed.problems);
  return parsed.spec as SpecOfKind[K];
}

export function loadEnvironment(text: string, file: string): EnvironmentSpec {
  return loadSpec('Environment', text, file);
}

export function loadUser(text: string, file: string): UserProfile {
  return loadSpec('User', text, file);
}

export function loadAgent(text: string, file: string): AgentConfig {
  return loadSpec('Agent', text, file);
}

export function loadRunConfig(text: string, file: string): RunConfig {
  return loadSpec('Run', text, file);
}
