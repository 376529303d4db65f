// The file-system side of spec validation: finds spec files in folders, reads them, and feeds core's pure parser
// and cross-file rules. Used by `coevolve validate` and by the editor.
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { isSpecFileName, specKindInfo, specKinds } from '../core/spec/kinds.js';
import { maxSpecFileBytes, parseSpecText, tooLargeMessage, type ParsedSpec } from '../core/spec/parse.js';
import { compareProblems, problemAt, startOfFile, type Problem } from '../core/spec/problems.js';
import { crossFileProblems } from '../core/spec/workspaceRules.js';

export interface SpecValidation {
  /** Every spec file checked, as absolute paths. */
  files: string[];
  specs: ParsedSpec[];
  /** All problems, sorted by file and position; `file` is an absolute path. */
  problems: Problem[];
}

export interface ValidateOptions {
  /** Folder that relative arguments are resolved against, and that messages name other files relative to. */
  cwd?: string;
}

/** Folders never searched for specs: dependencies, version control and other tools' hidden state. */
function skipFolder(name: string): boolean {
  return name === 'node_modules' || name.startsWith('.');
}

/** Spec files (`*.env.yaml`, `*.user.yaml`, `*.agent.yaml`, `*.run.yaml`) under `dir`, sorted. */
export async function findSpecFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (folder: string): Promise<void> => {
    const entries = await readdir(folder, { withFileTypes: true });
    for (const e of entries) {
      const full = join(folder, e.name);
      if (e.isDirectory()) {
        if (!skipFolder(e.name)) await walk(full);
      } else if (e.isFile() && isSpecFileName(e.name)) {
        found.push(full);
      }
    }
  };
  await walk(dir);
  return found.sort();
}

/** Reads and parses one spec file; unreadable or oversized files come back as a problem, never as a throw. */
export async function readSpecFile(file: string): Promise<ParsedSpec> {
  const fileProblem = (message: string): ParsedSpec => ({ file, problems: [problemAt(file, startOfFile, 'error', message)], locate: () => startOfFile });
  try {
    const info = await stat(file);
    if (info.size > maxSpecFileBytes) return fileProblem(tooLargeMessage(info.size));
    // Undecodable bytes become U+FFFD, which the parser reports as "not valid UTF-8" at their position.
    const text = new TextDecoder('utf-8').decode(await readFile(file));
    return parseSpecText(text, file);
  } catch (err) {
    return fileProblem(`cannot read the file: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * Validates files and folders (folders are searched for spec files): each file on its own, then the rules that
 * look across them (population paths exist, ids unique per kind).
 */
export async function validateFiles(paths: readonly string[], options: ValidateOptions = {}): Promise<SpecValidation> {
  const cwd = options.cwd ?? process.cwd();
  const problems: Problem[] = [];
  const files: string[] = [];
  for (const given of paths) {
    const abs = resolve(cwd, given);
    let isDir: boolean;
    try {
      isDir = (await stat(abs)).isDirectory();
    } catch {
      problems.push(problemAt(abs, startOfFile, 'error', 'no such file or folder'));
      continue;
    }
    if (!isDir) {
      files.push(abs);
      continue;
    }
    let found: string[];
    try {
      found = await findSpecFiles(abs);
    } catch (err) {
      problems.push(problemAt(abs, startOfFile, 'error', `cannot search this folder: ${err instanceof Error ? err.message : String(err)}`));
      continue;
    }
    if (found.length === 0) {
      const suffixes = specKinds.map((k) => `*${specKindInfo[k].suffix}`).join(', ');
      problems.push(problemAt(abs, startOfFile, 'warning', `no spec files (${suffixes}) in this folder`));
    }
    files.push(...found);
  }
  const unique = [...new Set(files)];
  const specs: ParsedSpec[] = [];
  for (const file of unique) specs.push(await readSpecFile(file));
  for (const s of specs) problems.push(...s.problems);
  problems.push(...crossFileProblems(specs, {
    resolve: (from, rel) => resolve(dirname(from), rel),
    exists: (p) => existsSync(p),
    display: (p) => relative(cwd, p) || p,
  }));
  problems.sort(compareProblems);
  return { files: unique, specs, problems };
}

/** Validates every spec file under a workspace folder. */
export async function validateWorkspace(dir: string, options: ValidateOptions = {}): Promise<SpecValidation> {
  return validateFiles([dir], options);
}
