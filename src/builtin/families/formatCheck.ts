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
}

export const checkScriptPath = 'check.sh';

/**
 * check.sh, the environment's feedback channel: `sh check.sh FILE` checks the public format. Verbose mode says
 * what is wrong and where; terse mode only says pass/fail — the `feedback` knob picks which one ships.
 */
export function buildFormatCheck(rules: FormatRules, verbose: boolean): string {
  const footers = rules.footers ?? [];
  const dataCmd = `awk -v h=${rules.header ? 1 : 0} -v t=${footers.length} '{ a[NR] = $0 } END { for (i = h + 1; i <= NR - t; i++) print a[i] }' "$f"`;
  const lines = [
    '#!/bin/sh',
    '# Format check of the output file (public rules only). Usage: sh check.sh OUTPUT_FILE',
    'f="$1"',
    `say() { ${verbose ? 'echo "problem: $1";' : ':;'} bad=1; }`,
    'bad=0',
    'if [ -z "$f" ] || [ ! -f "$f" ]; then echo "usage: sh check.sh OUTPUT_FILE (no such file: $f)"; exit 2; fi',
    `data() { ${dataCmd}; }`,
    '[ -s "$f" ] || say "the file is empty"',
    'tw=$(grep -n \'[[:space:]]$\' "$f" | cut -d: -f1 | head -n 5 | tr \'\\n\' \' \')',
    '[ -z "$tw" ] || say "trailing whitespace on line(s) $tw"',
    '[ -z "$(tail -c 1 "$f")" ] || say "the last line has no newline"',
  ];
  if (rules.header) lines.push(`head -n 1 "$f" | grep -Eq ${shq(rules.header)} || say ${shq(`line 1 is not a header matching ${rules.header}`)}`);
  footers.forEach((re, i) => {
    const fromEnd = footers.length - i;
    const which = fromEnd === 1 ? 'the last line' : `line ${fromEnd} from the end`;
    lines.push(`tail -n ${fromEnd} "$f" | head -n 1 | grep -Eq ${shq(re)} || say ${shq(`${which} does not match ${re}`)}`);
  });
  lines.push(
    `odd=$(data | grep -Evn ${shq(rules.data)} | head -n 1)`,
    `[ -z "$odd" ] || say "data line not in the format ${rules.data.replace(/["`$\\]/g, '')}: $odd"`,
  );
  if (rules.sortArgs) {
    lines.push(`[ "$(data | md5sum)" = "$(data | LC_ALL=C sort ${rules.sortArgs} | md5sum)" ] || say ${shq(`data lines are not in order (sort ${rules.sortArgs})`)}`);
  }
  lines.push('if [ $bad = 0 ]; then echo "check passed"; else echo "check failed"; fi', 'exit $bad', '');
  return lines.join('\n');
}
