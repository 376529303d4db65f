import { shq } from '../shellQuote.js';

/** Public format rules of an output file: only what the instruction states, never a hidden value. */
export interface FormatRules {
  /** ERE the first line must match, when the output has a header. */
  header?: string;
  /** EREs the last lines must match, in order, when the output ends with summary lines (e.g. a total). */
  footers?: string[];
  /** ERE every other line must match. */
  data: string;
  /** When set, data lines must already be in `sort <sortArgs>` order. */
  sortArgs?: string;
  /** INI files: the `[section]` each `key = value` line must sit in. */
  sections?: Record<string, string>;
  /** When set, `FILE.orig` must exist and have this MD5 (the backup of the original the instruction asks for). */
  backupMd5?: string;
  /** When set, this file must hold one line: the checked file's path (a marker naming the file). */
  namedIn?: string;
  /** A manifest of moved files (`<folder>/<file>` lines): none of them may still be in this folder. */
  movedFrom?: string;
}

export const checkScriptPath = 'check.sh';

/** An awk string literal. */
const awkString = (text: string): string => `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

/**
 * The checks on the file's lines (trailing spaces dropped), in one awk pass: the header, each footer, the first data
 * line out of the format and, for INI files, the first setting outside its section. It prints each problem as
 * `problem: ...` (only in verbose mode) and exits 1 when there is one. The regular expressions come in through the
 * environment (`ENVIRON`), so awk sees them byte for byte as `grep -E` did, with no escape processing.
 */
function linesProgram(rules: FormatRules, verbose: boolean, parts: { format: boolean; sections: boolean }): { env: Record<string, string>; program: string } {
  const footers = rules.footers ?? [];
  const env: Record<string, string> = {};
  const body: string[] = [];
  if (parts.format) formatChecks(rules, env, body);
  const perLine: string[] = [];
  let begin = '';
  if (parts.sections && rules.sections) {
    begin = Object.entries(rules.sections).map(([k, sec]) => `want["${k}"] = "${sec}"`).join('; ');
    // The first `key = value` line whose key belongs in another section; a `[name]` line opens a section.
    perLine.push(`if (mis == "") { if ($0 ~ /^\\[[a-z]+\\]$/) s = substr($0, 2, length($0) - 2); else if ($0 ~ /^[a-z_]+ = / && ($1 in want) && want[$1] != s) mis = $1 " (in [" s "], belongs in [" want[$1] "])" }`);
    body.push('if (mis != "") say("setting outside its section: " mis)');
  }
  const program = [
    `function say(m) { ${verbose ? 'print "problem: " m; ' : ''}bad = 1 }`,
    `BEGIN { h = ${rules.header ? 1 : 0}; t = ${footers.length}${begin ? `; ${begin}` : ''} }`,
    `{ sub(/[[:space:]]*$/, ""); a[NR] = $0${perLine.length ? `; ${perLine.join('; ')}` : ''} }`,
    `END { ${body.join('; ')}; exit bad }`,
  ].join('\n');
  return { env, program };
}

/** The header, each footer and the first data line out of the format, as awk statements of the END block. */
function formatChecks(rules: FormatRules, env: Record<string, string>, body: string[]): void {
  const footers = rules.footers ?? [];
  env.CHECK_DATA = rules.data;
  if (rules.header) {
    env.CHECK_HEADER = rules.header;
    body.push(`if (!(NR >= 1 && a[1] ~ ENVIRON["CHECK_HEADER"])) say(${awkString(`line 1 is not a header matching ${rules.header}`)})`);
  }
  footers.forEach((re, i) => {
    const fromEnd = footers.length - i;
    const which = fromEnd === 1 ? 'the last line' : `line ${fromEnd} from the end`;
    env[`CHECK_FOOTER${i}`] = re;
    // `tail -n N | head -n 1`: the Nth line from the end, or the first line of a shorter file.
    body.push(`i = NR - ${fromEnd - 1}; if (i < 1) i = 1; if (!(NR >= 1 && a[i] ~ ENVIRON["CHECK_FOOTER${i}"])) say(${awkString(`${which} does not match ${re}`)})`);
  });
  // grep -n numbers the data lines from 1; the message drops the characters the old double-quoted text lost.
  body.push(
    `n = 0; for (i = h + 1; i <= NR - t; i++) { n++; if (a[i] !~ ENVIRON["CHECK_DATA"]) { say(${awkString(`data line not in the format ${rules.data.replace(/["`$\\]/g, '')}: `)} n ":" a[i]); break } }`,
  );
}

/**
 * check.sh, the environment's feedback channel: `sh check.sh FILE` checks the public format (structure and order of
 * the lines, not whitespace: trailing spaces are a matter for the verifier's strictness). Verbose mode says what is
 * wrong and where; terse mode only says pass/fail — the `feedback` knob picks which one ships. The line checks run
 * in one awk and the order check is one `sort -c` (a few processes where a chain of sed, head, tail, grep and md5sum
 * per rule took dozens: the agent runs it in most plays); the messages and their order are the same.
 */
export function buildFormatCheck(rules: FormatRules, verbose: boolean): string {
  const footers = rules.footers ?? [];
  // With both an order rule and sections, the sections' message comes after the order's, as always.
  const sectionsApart = Boolean(rules.sortArgs && rules.sections);
  const main = linesProgram(rules, verbose, { format: true, sections: !sectionsApart });
  const envOf = (e: Record<string, string>): string => Object.entries(e).map(([k, v]) => `${k}=${shq(v)}`).join(' ');
  const lines = [
    '#!/bin/sh',
    '# Format check of the output file (public rules only). Usage: sh check.sh OUTPUT_FILE',
    'f="$1"',
    `say() { ${verbose ? 'echo "problem: $1";' : ':;'} bad=1; }`,
    'bad=0',
    'if [ -z "$f" ] || [ ! -f "$f" ]; then echo "usage: sh check.sh OUTPUT_FILE (no such file: $f)"; exit 2; fi',
    `data() { awk -v h=${rules.header ? 1 : 0} -v t=${footers.length} '{ sub(/[[:space:]]*$/, ""); a[NR] = $0 } END { for (i = h + 1; i <= NR - t; i++) print a[i] }' "$f"; }`,
    '[ -s "$f" ] || say "the file is empty"',
    `${envOf(main.env)} awk ${shq(main.program)} "$f" || bad=1`,
  ];
  if (rules.sortArgs) {
    // `sort -c` fails exactly when sorting would change the lines (same comparison, last resort included).
    lines.push(`data | LC_ALL=C sort -c ${rules.sortArgs} 2>/dev/null || say ${shq(`data lines are not in order (sort ${rules.sortArgs})`)}`);
  }
  if (sectionsApart) {
    lines.push(`awk ${shq(linesProgram(rules, verbose, { format: false, sections: true }).program)} "$f" || bad=1`);
  }
  if (rules.backupMd5) {
    lines.push(`if [ ! -f "$f.orig" ]; then say "no backup $f.orig"; elif [ "$(md5sum < "$f.orig")" != ${shq(`${rules.backupMd5}  -`)} ]; then say "$f.orig is not a copy of the original file"; fi`);
  }
  if (rules.namedIn) {
    const m = shq(rules.namedIn);
    lines.push(`if [ ! -f ${m} ]; then say ${shq(`${rules.namedIn} is missing`)}; elif [ "$(sed 's/[[:space:]]*$//' ${m})" != "$f" ]; then say ${shq(`${rules.namedIn} does not name`)}" $f"; fi`);
  }
  if (rules.movedFrom) {
    const from = shq(rules.movedFrom);
    // The first three names still there, each followed by a space (what `head -n 3 | tr '\n' ' '` gave).
    lines.push(`left=$(data | { n=0; while [ $n -lt 3 ] && IFS= read -r m; do b=\${m##*/}; [ -n "$b" ] && [ -e ${from}/"$b" ] && { printf '%s ' "$b"; n=$((n + 1)); }; done; })`, `[ -z "$left" ] || say "copied, not moved (still in ${rules.movedFrom}/): $left"`);
  }
  lines.push('if [ $bad = 0 ]; then echo "check passed"; else echo "check failed"; fi', 'exit $bad', '');
  return lines.join('\n');
}
