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

/**
 * check.sh, the environment's feedback channel: `sh check.sh FILE` checks the public format (structure and order of
 * the lines, not whitespace: trailing spaces are a matter for the verifier's strictness). Verbose mode says what is
 * wrong and where; terse mode only says pass/fail — the `feedback` knob picks which one ships.
 */
export function buildFormatCheck(rules: FormatRules, verbose: boolean): string {
  const footers = rules.footers ?? [];
  const dataCmd = `lines | awk -v h=${rules.header ? 1 : 0} -v t=${footers.length} '{ a[NR] = $0 } END { for (i = h + 1; i <= NR - t; i++) print a[i] }'`;
  const lines = [
    '#!/bin/sh',
    '# Format check of the output file (public rules only). Usage: sh check.sh OUTPUT_FILE',
    'f="$1"',
    `say() { ${verbose ? 'echo "problem: $1";' : ':;'} bad=1; }`,
    'bad=0',
    'if [ -z "$f" ] || [ ! -f "$f" ]; then echo "usage: sh check.sh OUTPUT_FILE (no such file: $f)"; exit 2; fi',
    'lines() { sed \'s/[[:space:]]*$//\' "$f"; }',
    `data() { ${dataCmd}; }`,
    '[ -s "$f" ] || say "the file is empty"',
  ];
  if (rules.header) lines.push(`lines | head -n 1 | grep -Eq ${shq(rules.header)} || say ${shq(`line 1 is not a header matching ${rules.header}`)}`);
  footers.forEach((re, i) => {
    const fromEnd = footers.length - i;
    const which = fromEnd === 1 ? 'the last line' : `line ${fromEnd} from the end`;
    lines.push(`lines | tail -n ${fromEnd} | head -n 1 | grep -Eq ${shq(re)} || say ${shq(`${which} does not match ${re}`)}`);
  });
  lines.push(
    `odd=$(data | grep -Evn ${shq(rules.data)} | head -n 1)`,
    `[ -z "$odd" ] || say "data line not in the format ${rules.data.replace(/["`$\\]/g, '')}: $odd"`,
  );
  if (rules.sortArgs) {
    lines.push(`[ "$(data | md5sum)" = "$(data | LC_ALL=C sort ${rules.sortArgs} | md5sum)" ] || say ${shq(`data lines are not in order (sort ${rules.sortArgs})`)}`);
  }
  if (rules.sections) {
    const table = Object.entries(rules.sections).map(([k, sec]) => `want["${k}"] = "${sec}"`).join('; ');
    lines.push(
      `misplaced=$(lines | awk 'BEGIN { ${table} } /^\\[[a-z]+\\]$/ { s = substr($0, 2, length($0) - 2); next } /^[a-z_]+ = / { if (($1 in want) && want[$1] != s) { print $1 " (in [" s "], belongs in [" want[$1] "])"; exit } }')`,
      '[ -z "$misplaced" ] || say "setting outside its section: $misplaced"',
    );
  }
  if (rules.backupMd5) {
    lines.push(`if [ ! -f "$f.orig" ]; then say "no backup $f.orig"; elif [ "$(md5sum < "$f.orig" | cut -d' ' -f1)" != ${shq(rules.backupMd5)} ]; then say "$f.orig is not a copy of the original file"; fi`);
  }
  if (rules.namedIn) {
    const m = shq(rules.namedIn);
    lines.push(`if [ ! -f ${m} ]; then say ${shq(`${rules.namedIn} is missing`)}; elif [ "$(sed 's/[[:space:]]*$//' ${m})" != "$f" ]; then say ${shq(`${rules.namedIn} does not name`)}" $f"; fi`);
  }
  if (rules.movedFrom) {
    const from = shq(rules.movedFrom);
    lines.push(`left=$(data | while IFS= read -r m; do b=\${m##*/}; [ -n "$b" ] && [ -e ${from}/"$b" ] && echo "$b"; done | head -n 3 | tr '\\n' ' ')`, `[ -z "$left" ] || say "copied, not moved (still in ${rules.movedFrom}/): $left"`);
  }
  lines.push('if [ $bad = 0 ]; then echo "check passed"; else echo "check failed"; fi', 'exit $bad', '');
  return lines.join('\n');
}
