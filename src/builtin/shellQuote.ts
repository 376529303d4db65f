/** Single-quotes a word for POSIX sh, so generated scripts survive any file name or value. */
export function shq(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
