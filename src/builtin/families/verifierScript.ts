import type { SandboxFile } from '../../core/spec/environment.js';
import { shq } from '../shellQuote.js';

/** Verifier files live here, copied in after the agent is done; the reward file too, so concurrent sandboxes never share it. */
export const verifierDir = '.verifier';
export const builtinRewardFile = `${verifierDir}/reward.json`;

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
 * {"<key>": 0|1, ...} to the reward file (partial credit) and exits 0 only when all checks pass.
 */
export function buildVerifier(family: string, strictness: number, checks: OutputCheck[]): { script: string; files: SandboxFile[] } {
  const lines = [
    '#!/bin/sh',
    `# Built-in verifier of the ${family} family (strictness ${strictness}: ${strictnessWords[Math.min(2, strictness)]}).`,
    `V=${verifierDir}`,
    'failed=0; parts=""',
    'record() { parts="$parts${parts:+,}\\"$1\\":$2"; [ "$2" = 1 ] || failed=1; }',
  ];
  for (const c of checks) {
    const body = [
      `( ${c.actual} ) 2>/dev/null | ${c.norm} > "$V/${c.key}.actual"`,
      `cat "$V/${c.key}.expected" | ${c.norm} > "$V/${c.key}.want"`,
      `if cmp -s "$V/${c.key}.want" "$V/${c.key}.actual"; then echo ${shq(`ok ${c.label}`)}; record ${c.key} 1;`,
      `else echo ${shq(`FAIL ${c.label}: differs from the expected result (- expected, + found):`)}; diff "$V/${c.key}.want" "$V/${c.key}.actual" 2>/dev/null | head -n 20; record ${c.key} 0; fi`,
    ].join('\n  ');
    if (!c.requireFile) { lines.push(body); continue; }
    lines.push(`if [ -f ${shq(c.requireFile)} ]; then\n  ${body}`, `else echo ${shq(`FAIL ${c.label}: ${c.requireFile} is missing`)}; record ${c.key} 0`, 'fi');
  }
  lines.push(`mkdir -p ${shq(builtinRewardFile.replace(/\/[^/]*$/, ''))}`, `printf '{%s}\\n' "$parts" > ${shq(builtinRewardFile)}`, 'exit $failed', '');
  const files = checks.map((c) => ({ path: `${verifierDir}/${c.key}.expected`, content: c.expected }));
  return { script: lines.join('\n'), files };
}
