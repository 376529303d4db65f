// The file-system side of spec validation: finds spec files in folders, reads them, and feeds core's pure parser
// and cross-file rules. Used by `coevolve validate` and by the editor.
import { existsSync, lstatSync, type Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { isSpecFileName, specKindInfo, specKinds } from '../core/spec/kinds.js';
import { maxSpecFileBytes, parseSpecText, tooLargeMessage, type ParsedSpec } from '../core/spec/parse.js';
import { compareProblems, problemAt, startOfFile, type Problem } from '../core/spec/problems.js';
import { crossFileProblems } from '../core/spec/workspaceRules.js';
import { FileReadError, readFileBounded, readFileBoundedAsync } from '../files/boundedRead.js';
import { builtinFamilyProblems } from './builtinFamilyRule.js';

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
  /** How a folder is listed while searching (tests remove a folder between two listings, for real). */
  listFolder?: ListFolder;
}

export type ListFolder = (folder: string) => Promise<Dirent[]>;

const listFolderOnDisk: ListFolder = (folder) => readdir(folder, { withFileTypes: true });

/** Nothing at all at `file` any more (a dangling link is still there, and still reported). */
function isGone(file: string): boolean {
  try {
    lstatSync(file);
    return false;
  } catch (err) {
    return vanished(err);
  }
}

/** A folder or file that went away (or became a file) after its parent was listed: another process's temp folder. */
function vanished(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** Folders never searched for specs: dependencies, version control and other tools' hidden state. */
function skipFolder(name: string): boolean {
  return name === 'node_modules' || name.startsWith('.');
}

/**
 * Spec files (`*.env.yaml`, `*.user.yaml`, `*.agent.yaml`, `*.run.yaml`) under `dir`, sorted. A subfolder that
 * vanishes between its parent's listing and its own (a shared /tmp) is skipped; `dir` itself must be listable.
 */
export async function findSpecFiles(dir: string, listFolder: ListFolder = listFolderOnDisk): Promise<string[]> {
  const found: string[] = [];
  const walk = async (folder: string): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await listFolder(folder);
    } catch (err) {
      if (folder !== dir && vanished(err)) return;
      throw err;
    }
    for (const e of entries) {
      const full = join(folder, e.name);
      if (e.isDirectory()) {
        if (!skipFolder(e.name)) await walk(full);
      } else if (!e.isDirectory() && isSpecFileName(e.name)) {
        // Links, FIFOs and devices under a spec name are read (and refused) by readSpecFile, so they are reported
        // instead of silently skipped. Linked folders are not walked: a link cycle would never end.
        if (!e.isSymbolicLink() || !(await stat(full).then((s) => s.isDirectory(), () => false))) found.push(full);
      }
    }
  };
  await walk(dir);
  return found.sort();
}

/**
 * Reads and parses one spec file; unreadable, oversized or non-regular files (a FIFO, a link to /dev/zero) come
 * back as a problem, never as a throw, a hang or an unbounded read.
 */
export async function readSpecFile(file: string): Promise<ParsedSpec> {
  const fileProblem = (message: string): ParsedSpec => ({ file, problems: [problemAt(file, startOfFile, 'error', message)], locate: () => startOfFile });
  try {
    // Undecodable bytes become U+FFFD, which the parser reports as "not valid UTF-8" at their position.
    const text = new TextDecoder('utf-8').decode(await readFileBoundedAsync(file, { maxBytes: maxSpecFileBytes }));
    return parseSpecText(text, file);
  } catch (err) {
    if (err instanceof FileReadError) return fileProblem(specReadMessage(err));
    return fileProblem(`cannot read the file: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * The text of a spec file for the CLI's loaders (run configs, population files), under the same rules as
 * readSpecFile; throws an Error whose message starts with the file.
 */
export function readSpecTextSync(file: string, shown = file): string {
  try {
    return new TextDecoder('utf-8').decode(readFileBounded(file, { maxBytes: maxSpecFileBytes }));
  } catch (err) {
    if (err instanceof FileReadError) throw new Error(`${shown}: ${specReadMessage(err)}`);
    throw err;
  }
}

/** A FileReadError as the problem message of a spec file. */
export function specReadMessage(err: FileReadError): string {
  if (err.code === 'too-large') return tooLargeMessage(err.size ?? maxSpecFileBytes + 1);
  if (err.code === 'not-regular') return `cannot read the file: it ${err.reason}; a spec must be a regular file`;
  return `cannot read the file: it ${err.reason}`;
}

/**
 * Validates files and folders (folders are searched for spec files): each file on its own, then the rules that
 * look across them (population paths exist, ids unique per kind).
 */
export async function validateFiles(paths: readonly string[], options: ValidateOptions = {}): Promise<SpecValidation> {
  const cwd = options.cwd ?? process.cwd();
  const problems: Problem[] = [];
  const files: string[] = [];
  const searched = new Set<string>();
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
      found = await findSpecFiles(abs, options.listFolder);
    } catch (err) {
      problems.push(problemAt(abs, startOfFile, 'error', `cannot search this folder: ${err instanceof Error ? err.message : String(err)}`));
      continue;
    }
    if (found.length === 0) {
      const suffixes = specKinds.map((k) => `*${specKindInfo[k].suffix}`).join(', ');
      problems.push(problemAt(abs, startOfFile, 'warning', `no spec files (${suffixes}) in this folder`));
    }
    files.push(...found);
    for (const f of found) searched.add(f);
  }
  const specs: ParsedSpec[] = [];
  for (const file of new Set(files)) {
    const spec = await readSpecFile(file);
    // A file found by searching that is gone when read was another process's: dropped, like a vanished folder.
    if (searched.has(file) && spec.problems.length > 0 && isGone(file)) continue;
    specs.push(spec);
  }
  const unique = specs.map((s) => s.file);
  for (const s of specs) problems.push(...s.problems);
  problems.push(...crossFileProblems(specs, {
    resolve: (from, rel) => resolve(dirname(from), rel),
    exists: (p) => existsSync(p),
    display: (p) => relative(cwd, p) || p,
  }));
  problems.push(...builtinFamilyProblems(specs));
  problems.sort(compareProblems);
  return { files: unique, specs, problems };
}

/** Validates every spec file under a workspace folder. */
export async function validateWorkspace(dir: string, options: ValidateOptions = {}): Promise<SpecValidation> {
  return validateFiles([dir], options);
}
