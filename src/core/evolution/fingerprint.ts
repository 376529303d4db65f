import { hashString } from '../ports/rng.js';
import type { EnvironmentSpec } from '../spec/environment.js';

/**
 * A content fingerprint for duplicate detection: what the agent faces and how it is checked, with ids, lineage
 * and whitespace removed. Two specs with the same fingerprint are the same task. The user's opening request and the
 * agent's command budget are part of what it faces (the generic operators' vaguer request, mistaken statement and
 * tighter budget change only those, and their children were refused as duplicates of their parent).
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
    norm(spec.user.request),
    `${spec.sandbox.limits.commandTimeoutSec}/${spec.sandbox.limits.maxOutputBytes}`,
  ];
  return `${hashString(parts.join('\u0001')).toString(16)}-${hashString([...parts].reverse().join('\u0002')).toString(16)}`;
}
