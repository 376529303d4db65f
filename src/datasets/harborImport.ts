import { basename, join, resolve } from 'node:path';
import { parse as parseToml, TomlError } from 'smol-toml';
import { environmentSpecSchema, type EnvironmentSpec } from '../core/spec/environment.js';
import { FolderReadError, SafeFolder } from '../files/safeFolder.js';
import { toolVersion } from '../core/version.js';
import { readDockerfile } from './dockerfile.js';
import { harborExportFormat } from './harborTask.js';
import { coevolveTaskInput, foreignTaskInput, type HarborTaskContext, type SandboxFileInput, type Table } from './harborMapping.js';
import { idFromName } from './idFromName.js';
import type { ImportedItem, ImportResult, SkippedItem } from './importReport.js';

export interface HarborImportOptions {
  /** License of the source suite, recorded in provenance (e.g. "apache-2.0"). */
  license?: string;
  now?: Date;
}

/** Byte caps per file: a little above what the spec field holds, so the schema still names the field. */
export const harborReadLimits = {
  instruction: { maxBytes: 256 * 1024, what: 'an instruction' },
  script: { maxBytes: 1024 * 1024, what: 'a script' },
  taskToml: { maxBytes: 1024 * 1024, what: 'a task.toml' },
  dockerfile: { maxBytes: 1024 * 1024, what: 'a Dockerfile' },
  specFile: { maxBytes: 4 * 1024 * 1024, what: 'a spec file' },
} as const;

/**
 * Harbor / Terminal-Bench 2.x task folders as environment specs. Each argument may be a task folder or a folder
 * holding task folders (a dataset, or a Coevolve harbor export); it is the boundary of what is read (SafeFolder).
 * Nothing here throws for a bad task: every problem becomes a skipped item or an "unmapped" note in the result.
 * Two tasks that map to one id: the first is imported, the later ones are skipped naming it.
 */
export function importHarborTasks(paths: readonly string[], options: HarborImportOptions = {}): ImportResult<EnvironmentSpec> {
  const result: ImportResult<EnvironmentSpec> = { imported: [], skipped: [] };
  const seen = new Set<string>();
  const ids = new Map<string, string>();
  for (const p of paths) {
    const given = resolve(p);
    let folder: SafeFolder;
    try {
      folder = SafeFolder.open(given);
    } catch (err) {
      const isFile = err instanceof FolderReadError && err.reason === 'is not a folder';
      result.skipped.push({ source: given, reason: isFile ? 'is a file; pass a Harbor task folder (with task.toml, instruction.md, tests/) or a folder of them' : 'does not exist' });
      continue;
    }
    for (const rel of findTaskDirs(folder, given, result.skipped)) {
      const task = folder.sub(rel);
      if (seen.has(task.base)) continue;
      seen.add(task.base);
      const source = rel ? join(given, rel) : given;
      const r = importOne(task, source, options);
      if ('reason' in r) result.skipped.push(r);
      else if (ids.has(r.id)) result.skipped.push({ source, reason: `its id "${r.id}" is already taken by ${ids.get(r.id)} in this import; rename one of the folders (or its [metadata.coevolve] id)` });
      else {
        ids.set(r.id, source);
        result.imported.push(r);
      }
    }
  }
  return result;
}

function importOne(task: SafeFolder, source: string, options: HarborImportOptions): ImportedItem<EnvironmentSpec> | SkippedItem {
  try {
    return importHarborTask(source, options, task);
  } catch (err) {
    // A refused or unreadable file skips its task; a bug must not end the whole import either.
    if (err instanceof FolderReadError) return { source, reason: err.message };
    return { source, reason: `could not be read: ${err instanceof Error ? err.message : String(err)}` };
  }
}

const taskMarkers = ['task.toml', 'instruction.md', 'task.yaml', 'tests/test.sh'];

function isTaskDir(folder: SafeFolder, rel: string): boolean {
  return taskMarkers.some((m) => folder.entry(rel ? `${rel}/${m}` : m).kind !== 'missing');
}

/** Task folders at or under the boundary (three levels deep), relative to it; refused links become skipped items. */
function findTaskDirs(folder: SafeFolder, given: string, skipped: SkippedItem[]): string[] {
  if (isTaskDir(folder, '')) return [''];
  const out: string[] = [];
  const walk = (rel: string, depth: number): void => {
    const { dirs, notes } = folder.subfolders(rel);
    for (const n of notes) skipped.push({ source: join(given, n.rel), reason: `${basename(n.rel)}: ${n.reason}` });
    for (const sub of dirs) {
      const name = basename(sub);
      if (name.startsWith('.') || name === 'node_modules') continue;
      if (isTaskDir(folder, sub)) out.push(sub);
      else if (depth < 3) walk(sub, depth + 1);
    }
  };
  walk('', 1);
  if (out.length === 0 && !skipped.some((s) => s.source.startsWith(given))) {
    skipped.push({ source: given, reason: 'no Harbor task folders found in it (a task folder has task.toml, instruction.md and tests/test.sh)' });
  }
  return out;
}

/** A folder's files as sandbox files; what cannot be carried (binary, too large, a link out) becomes a note. */
function readSandboxFiles(task: SafeFolder, rel: string, prefix: string, exclude: (rel: string) => boolean, unmapped: string[]): SandboxFileInput[] {
  const files: SandboxFileInput[] = [];
  const listing = task.listFiles(rel, { maxFiles: 500 });
  unmapped.push(...listing.notes);
  for (const f of listing.files) {
    if (exclude(f.rel)) continue;
    let content: string;
    try {
      content = task.readText(`${rel}/${f.rel}`, harborReadLimits.specFile);
    } catch (err) {
      if (!(err instanceof FolderReadError)) throw err;
      unmapped.push(`${err.message}; not imported`);
      continue;
    }
    const file: SandboxFileInput = { path: `${prefix}${f.rel}`, content };
    if (f.mode !== 0o644) file.mode = f.mode.toString(8).padStart(3, '0');
    files.push(file);
  }
  return files;
}

function parseTaskToml(text: string | undefined, unmapped: string[]): Table | { reason: string } {
  if (text === undefined) {
    unmapped.push('task.toml: missing; limits and timeouts left at Coevolve defaults');
    return {};
  }
  try {
    return parseToml(text) as Table;
  } catch (err) {
    const where = err instanceof TomlError ? ` at line ${err.line}, column ${err.column}` : '';
    const msg = err instanceof Error ? err.message.split('\n')[0] : String(err);
    return { reason: `task.toml does not parse${where}: ${msg}; fix the TOML and import again` };
  }
}

/**
 * One task folder. `folder` is the boundary-checked view of `dir` (the task folder alone when not given); a
 * refused file throws FolderReadError, which importHarborTasks turns into a skipped item.
 */
export function importHarborTask(dir: string, options: HarborImportOptions = {}, folder: SafeFolder = SafeFolder.open(dir)): ImportedItem<EnvironmentSpec> | SkippedItem {
  const unmapped: string[] = [];
  const L = harborReadLimits;
  if (folder.entry('task.yaml').kind !== 'missing' && folder.entry('task.toml').kind === 'missing') {
    return { source: dir, reason: 'Terminal-Bench 1 layout (task.yaml); convert it to a Harbor task first (harbor tasks migrate)' };
  }
  const parsedToml = parseTaskToml(folder.readTextIfPresent('task.toml', L.taskToml), unmapped);
  if (typeof parsedToml.reason === 'string') return { source: dir, reason: parsedToml.reason };
  const toml = parsedToml as Table;
  const co = ((toml.metadata as Table | undefined) ?? {}).coevolve as Table | undefined;
  const ours = co?.format === harborExportFormat;

  const instruction = folder.readTextIfPresent('instruction.md', L.instruction);
  if (instruction === undefined) return { source: dir, reason: 'instruction.md is missing: there is nothing to tell the agent' };
  const testSh = folder.readTextIfPresent('tests/test.sh', L.script);
  if (testSh === undefined) return { source: dir, reason: 'tests/test.sh is missing: nothing could check the agent\'s work (Harbor requires it)' };
  const dockerText = folder.readTextIfPresent('environment/Dockerfile', L.dockerfile);
  const ctx: HarborTaskContext = {
    dir,
    name: basename(dir),
    toml,
    co,
    instruction,
    testSh,
    solveSh: folder.readTextIfPresent('solution/solve.sh', L.script),
    verifySh: ours ? folder.readTextIfPresent('tests/verify.sh', L.script) : undefined,
    dockerText,
    docker: dockerText !== undefined ? readDockerfile(dockerText) : undefined,
    solutionExtras: folder.listFiles('solution').files.map((f) => f.rel).filter((f) => f !== 'solve.sh'),
    files: (rel, prefix, exclude = () => false) => readSandboxFiles(folder, rel, prefix, exclude, unmapped),
    id: ours && typeof co?.id === 'string' ? co.id : idFromName(basename(dir), 'harbor-task'),
    unmapped,
    header: [`Imported from the Harbor task ${dir}`, `by Coevolve ${toolVersion} on ${(options.now ?? new Date()).toISOString().slice(0, 10)}.`],
    options,
  };
  const envSec = (toml.environment ?? {}) as Table;
  if (!ours && envSec.allow_internet === true) {
    return { source: dir, reason: 'task.toml sets environment.allow_internet = true, and Coevolve sandboxes never have a network: the task would fail for want of it, not for the agent. Set it to false if the task does not need the network, then import again' };
  }
  const input = ours && co ? coevolveTaskInput(ctx, co) : foreignTaskInput(ctx);
  if ('reason' in input) return { source: dir, reason: input.reason };
  const parsed = environmentSpecSchema.safeParse(input);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    return { source: dir, reason: `does not make a valid environment spec: ${issues}` };
  }
  if (unmapped.length > 0) ctx.header.push('Not mapped:', ...unmapped.map((u) => `  - ${u}`));
  // The file keeps what was given, not every default, so it reads like a hand-written spec.
  return { source: dir, id: ctx.id, spec: parsed.data, document: input, header: ctx.header, unmapped };
}
