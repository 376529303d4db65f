import { verifierPaths } from '../../core/ports/sandbox.js';
import type { SandboxFile } from '../../core/spec/environment.js';
import { shq } from '../shellQuote.js';

/**
 * Where the built-in verifier reads its expected outputs (/tests, written only after the agent is done) and writes
 * its scratch files and reward (/logs/verifier, empty when it starts): nothing the agent wrote can stand in for
 * either (see "The verifier's trust rule").
 */
export const builtinRewardFile = verifierPaths.rewardJson;

/**
 * How a check compares: a sh filter for the agent's side (`first`, which also takes a file argument, then `rest`),
 * and the same filter computed on the host for the expected side, which is our own text (ASCII, no NUL). The
 * verifier ships the expected output already normalised instead of filtering it in every play;
 * test/integration/builtin/verifierScript.test.ts runs both sides through busybox to keep them equal.
 */
export interface TextNorm {
  first: string;
  rest?: string;
  apply(text: string): string;
  /**
   * Whether a file is first compared byte for byte with the normalised expected text (one `cmp`): worth it when a
   * correct output usually is that text already. Valid only for a filter that leaves its own output unchanged.
   */
  cmpFirst: boolean;
}

/** One comparison: what the agent left (a file's content, or what a sh command prints) against `expected`. */
export interface OutputCheck {
  key: string;
  label: string;
  /** A file the check needs; when absent the check fails with "missing". */
  requireFile?: string;
  /** The content of this file in the workdir, or the output of this sh command (its stderr dropped). */
  actual: { file: string } | { command: string };
  expected: string;
  norm: TextNorm;
}

/** The whole filter as a pipeline (stdin → stdout). */
export const normFilter = (n: TextNorm): string => (n.rest ? `${n.first} | ${n.rest}` : n.first);

/** Lines of a text as sed and grep read them: a last line without its newline is a line too. */
export const textLines = (text: string): string[] => (text === '' ? [] : (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n'));
const joinLines = (lines: string[]): string => lines.map((l) => `${l}\n`).join('');
/** [[:space:]] in the C locale. */
export const space = '[ \\t\\n\\v\\f\\r]';
const trailingSpace = new RegExp(`${space}+$`), leadingSpace = new RegExp(`^${space}+`);
/** LC_ALL=C sort: byte order (the texts are ASCII, so code unit order is byte order). */
export const byteOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function asciiOnly(text: string): string {
  if (/[^\x01-\x7f]/.test(text)) throw new Error('the expected side of a built-in check must be ASCII text without NUL');
  return text;
}

/** Text by strictness: 0 = lines trimmed, blank lines dropped, order free; 1 = order kept; 2 = byte-exact. */
export function textNorm(strictness: number): TextNorm {
  if (strictness >= 2) return { first: 'cat', apply: (t) => t, cmpFirst: true };
  const trim = (t: string): string[] => textLines(asciiOnly(t)).map((l) => l.replace(/\r$/, '').replace(trailingSpace, '').replace(leadingSpace, '')).filter((l) => l !== '');
  return {
    first: `sed -e 's/\\r$//' -e 's/[[:space:]]*$//' -e 's/^[[:space:]]*//'`,
    rest: `grep -v '^$'${strictness === 0 ? ' | LC_ALL=C sort' : ''}`,
    apply: (t) => joinLines(strictness === 0 ? trim(t).sort(byteOrder) : trim(t)),
    // Strictness 0 sorts the expected side, which a correct output in any other order never equals byte for byte.
    cmpFirst: strictness === 1,
  };
}

const strictnessWords = ['order and surrounding spaces are free', 'order matters, surrounding spaces do not', 'byte-exact'];

/**
 * One check's sh lines. The expected file in /tests is already normalised, so only the agent's side is filtered
 * (a file is read by the filter's first process itself: no cat, no subshell). With `cmpFirst`, a file that is byte
 * for byte the normalised expected text passes on one `cmp` (the filter leaves it unchanged, so the full
 * comparison would pass too); anything else is filtered and compared, and a difference is shown as a diff of the
 * two normalised texts, labelled as it always was.
 */
function checkLines(c: OutputCheck): string[] {
  const want = `"$T/${c.key}.expected"`, got = `"$L/${c.key}.actual"`;
  const file = 'file' in c.actual ? shq(c.actual.file) : undefined;
  const { first, rest } = c.norm;
  const filtered = file === undefined
    ? `( ${'command' in c.actual ? c.actual.command : ''} ) 2>/dev/null | ${normFilter(c.norm)} > ${got}`
    : `${first} ${file} 2>/dev/null${rest ? ` | ${rest}` : ''} > ${got}`;
  const ok = `echo ${shq(`ok ${c.label}`)}; record ${c.key} 1;`;
  const compare = [
    filtered,
    `if cmp -s ${want} ${got}; then ${ok}`,
    `else echo ${shq(`FAIL ${c.label}: differs from the expected result (- expected, + found):`)}; diff -L "$L/${c.key}.want" -L "$L/${c.key}.actual" ${want} ${got} 2>/dev/null | head -n 20; record ${c.key} 0; fi`,
  ];
  if (file === undefined || !c.norm.cmpFirst) return compare;
  return [`if cmp -s ${want} ${file}; then ${ok}`, 'else', ...compare.map((l) => `  ${l}`), 'fi'];
}

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
    const body = checkLines(c).join('\n  ');
    if (!c.requireFile) { lines.push(body); continue; }
    lines.push(`if [ -f ${shq(c.requireFile)} ]; then\n  ${body}`, `else echo ${shq(`FAIL ${c.label}: ${c.requireFile} is missing`)}; record ${c.key} 0`, 'fi');
  }
  lines.push(`printf '{%s}\\n' "$parts" > "$L/reward.json"`, 'exit $failed', '');
  // Paths relative to /tests, each already normalised as the check compares it.
  const files = checks.map((c) => ({ path: `${c.key}.expected`, content: c.norm.apply(c.expected) }));
  return { script: lines.join('\n'), files };
}
