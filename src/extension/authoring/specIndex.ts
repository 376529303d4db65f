// The editor's picture of every spec file in the workspace: each file parsed on its own (from the open editor's text
// when there is one, else from disk), plus the rules that look across files. One keystroke re-parses one file and
// re-runs the cross-file rules, which only read the parsed results, so it stays cheap.
import { parseSpecText, type ParsedSpec } from '../../core/spec/parse.js';
import { compareProblems, type Problem } from '../../core/spec/problems.js';
import { crossFileProblems, type WorkspaceFiles } from '../../core/spec/workspaceRules.js';
import { builtinFamilyProblems } from '../../specs/builtinFamilyRule.js';

export type ValidationState = 'valid' | 'warnings' | 'errors';

export interface SpecIndexFiles {
  /** `relative` resolved against the folder of `fromFile` (absolute paths in, absolute paths out). */
  resolve(fromFile: string, relative: string): string;
  /** Whether a path exists on disk (population entries may name folders or files the index does not hold). */
  existsOnDisk(path: string): boolean;
  /** How messages name another file (relative to the workspace). */
  display(path: string): string;
}

export class SpecIndex {
  private readonly parsed = new Map<string, ParsedSpec>();
  private problemsByFile = new Map<string, Problem[]>();

  constructor(private readonly files: SpecIndexFiles) {}

  /** Parses a file's current text; call `recompute` afterwards (once for a batch). */
  set(file: string, text: string): void {
    this.parsed.set(file, parseSpecText(text, file));
  }

  delete(file: string): boolean {
    return this.parsed.delete(file);
  }

  has(file: string): boolean {
    return this.parsed.has(file);
  }

  get(file: string): ParsedSpec | undefined {
    return this.parsed.get(file);
  }

  fileNames(): string[] {
    return [...this.parsed.keys()].sort();
  }

  /**
   * Re-runs the cross-file rules and returns every file whose problems changed (including files that now have none),
   * with its new problems.
   */
  recompute(): Map<string, Problem[]> {
    const specs = [...this.parsed.values()];
    const workspace: WorkspaceFiles = {
      resolve: (from, rel) => this.files.resolve(from, rel),
      exists: (p) => this.parsed.has(p) || this.files.existsOnDisk(p),
      display: (p) => this.files.display(p),
    };
    const next = new Map<string, Problem[]>();
    for (const s of specs) next.set(s.file, [...s.problems]);
    for (const p of [...crossFileProblems(specs, workspace), ...builtinFamilyProblems(specs)]) {
      const list = next.get(p.file);
      if (list) list.push(p);
      else next.set(p.file, [p]);
    }
    const changed = new Map<string, Problem[]>();
    for (const [file, list] of next) {
      list.sort(compareProblems);
      if (!sameProblems(this.problemsByFile.get(file), list)) changed.set(file, list);
    }
    for (const file of this.problemsByFile.keys()) if (!next.has(file)) changed.set(file, []);
    this.problemsByFile = next;
    return changed;
  }

  problems(file: string): Problem[] {
    return this.problemsByFile.get(file) ?? [];
  }

  state(file: string): ValidationState | undefined {
    if (!this.parsed.has(file)) return undefined;
    const list = this.problems(file);
    if (list.some((p) => p.severity === 'error')) return 'errors';
    return list.length > 0 ? 'warnings' : 'valid';
  }
}

function sameProblems(a: Problem[] | undefined, b: Problem[]): boolean {
  if (!a || a.length !== b.length) return false;
  return a.every((p, i) => {
    const q = b[i]!;
    return p.line === q.line && p.column === q.column && p.endLine === q.endLine && p.endColumn === q.endColumn && p.message === q.message && p.severity === q.severity;
  });
}
