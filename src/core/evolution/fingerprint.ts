import { hashString } from '../ports/rng.js';
import type { EnvironmentSpec } from '../spec/environment.js';

/**
 * A content fingerprint for duplicate detection: what the agent faces and how it is checked, with ids, lineage
 * and whitespace removed. Two specs with the same fingerprint are the same task.
 */
export function environmentFingerprint(spec: EnvironmentSpec): string {
  const norm = (s: string): string => s.replace(/\s+/g, ' ').trim().toLowerCase();
  const parts = [
    spec.family,
    norm(spec.instruction),
    ...spec.sandbox.files.map((f) => `${f.path}\u0000${norm(f.content)}`).sort(),
    ...spec.sandbox.setup.map(norm),
    norm(spec.verifier.script),
    ...spec.verifier.files.map((f) => `${f.path}\u0000${norm(f.content)}`).sort(),
    ...spec.user.facts.map((f) => norm(f.text)).sort(),
  ];
  return `${hashString(parts.join('\u0001')).toString(16)}-${hashString([...parts].reverse().join('\u0002')).toString(16)}`;
}
