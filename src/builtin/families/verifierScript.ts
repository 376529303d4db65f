import { verifierPaths } from '../../core/ports/sandbox.js';
import type { SandboxFile } from '../../core/spec/environment.js';
import { shq } from '../shellQuote.js';

/**
 * Where the built-in verifier reads its expected outputs (/tests, written only after the agent is done) and writes
 * its scratch files and reward (/logs/verifier, empty when it starts): nothing the agent wrote can stand in for
 * either (see "The verifier's trust rule").
 */
export const builtinRewardFile = verifierPaths.rewardJson;

/** One comparison: text printed by `actual` (a sh command) against `expected`, both passed through `norm`. */
export interface OutputCheck {
  key: string;
  label: string;
  /** A file the check needs; when absent the check fails with "missing". */
  requireFile?: string;
  actual: string;
  expected: string;
  /** A sh filter (stdin → stdout) applied to both sides; `textNorm(strictness)` for plain text outputs. */
  norm: string;
}

/** Text normalisation by strictness: 0 = lines trimmed, blank lines dropped, order free; 1 = order kept; 2 = byte-exact. */
export function textNorm(strictness: number): string {
  if (strictness >= 2) return 'cat';
  const trim = `sed -e 's/\\r$//' -e 's/[[:space:]]*$//' -e 's/^[[:space:]]*//' | grep -v '^$'`;
  return strictness === 1 ? trim : `${trim} | LC_ALL=C sort`;
}

const strictnessWords = ['order and surrounding spaces are free', 'order matters, surrounding spaces do not', 'byte-exact'];

/**
 * A POSIX sh verifier (busybox-only tools) that runs every check, prints what failed and why, writes
 * {"<key>": 0|1, ...} to /logs/verifier/reward.json and exits 0 only when all checks pass (without partial credit a
 * failing exit gives reward 0, so the parts are detail for the viewer).
 */
export function buildVerifier(family: string, strictness: number, checks: OutputCheck[]): { script: string; files: SandboxFile[] } {
  const lines = [
    '#!/bin/sh',
    `# Built-in verifier of the ${family} family (strictness ${strictness}: ${strictnessWords[Math.min(2, strictness)]}).`,
    `T=${verifierPaths.tests}; L=${verifierPaths.logs}`,
    'failed=0; parts=""',
    'record() { parts="$parts${parts:+,}\\"$1\\":$2"; [ "$2" = 1 ] || failed=1; }',
  ];
  for (const c of checks) {
    const body = [
      `( ${c.actual} ) 2>/dev/null | ${c.norm} > "$L/${c.key}.actual"`,
      `cat "$T/${c.key}.expected" | ${c.norm} > "$L/${c.key}.want"`,
      `if cmp -s "$L/${c.key}.want" "$L/${c.key}.actual"; then echo ${shq(`ok ${c.label}`)}; record ${c.key} 1;`,
      `else echo ${shq(`FAIL ${c.label}: differs from the expected result (- expected, + found):`)}; diff "$L/${c.key}.want" "$L/${c.key}.actual" 2>/dev/null | head -n 20; record ${c.key} 0; fi`,
    ].join('\n  ');
    if (!c.requireFile) { lines.push(body); continue; }
    lines.push(`if [ -f ${shq(c.requireFile)} ]; then\n  ${body}`, `else echo ${shq(`FAIL ${c.label}: ${c.requireFile} is missing`)}; record ${c.key} 0`, 'fi');
  }
  lines.push(`printf '{%s}\\n' "$parts" > "$L/reward.json"`, 'exit $failed', '');
  // Paths relative to /tests.
  const files = checks.map((c) => ({ path: `${c.key}.expected`, content: c.expected }));
  return { script: lines.join('\n'), files };
}
