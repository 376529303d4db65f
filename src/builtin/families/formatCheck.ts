import { shq } from '../shellQuote.js';

/** Public format rules of an output file: only what the instruction states, never a hidden value. */
export interface FormatRules {
  /** ERE the first line must match, when the output has a header. */
  header?: string;
  /** ERE the last line must match, when the output has a footer (e.g. a total). */
  footer?: string;
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
  const dataCmd = ['sed -n', shq(rules.header ? '2,$p' : '1,$p'), '"$f"', rules.footer ? "| sed '$d'" : ''].join(' ').trim();
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
  if (rules.footer) lines.push(`tail -n 1 "$f" | grep -Eq ${shq(rules.footer)} || say ${shq(`the last line does not match ${rules.footer}`)}`);
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
