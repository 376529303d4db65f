/** A path into a spec, as keys and list indexes: `['sandbox', 'files', 0, 'path']`. */
export type SpecPath = (string | number)[];

export type Severity = 'error' | 'warning';

/**
 * One thing wrong with a spec file, positioned on the node it is about. Lines and columns are 1-based; the end is
 * exclusive (the position just after the last character), as editors expect for ranges.
 */
export interface Problem {
  file: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  severity: Severity;
  message: string;
  path: SpecPath;
}

/** A 1-based range in a text, end exclusive. */
export interface TextRange {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

/** The first character of a file, for problems about the file as a whole (empty, binary, too large). */
export const startOfFile: TextRange = { line: 1, column: 1, endLine: 1, endColumn: 1 };

export function problemAt(file: string, range: TextRange, severity: Severity, message: string, path: SpecPath = []): Problem {
  return { file, ...range, severity, message, path };
}

/** `['sandbox', 'files', 0, 'path']` → `sandbox.files[0].path`, the way people read paths into YAML. */
export function formatPath(path: SpecPath): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(seg)) out += out === '' ? seg : `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

/** By file, then position (errors before warnings at the same spot), so output reads top to bottom. */
export function compareProblems(a: Problem, b: Problem): number {
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  return a.line - b.line || a.column - b.column || (a.severity === b.severity ? 0 : a.severity === 'error' ? -1 : 1);
}

export function hasErrors(problems: readonly Problem[]): boolean {
  return problems.some((p) => p.severity === 'error');
}
