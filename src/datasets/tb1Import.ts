import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { EnvironmentSpec } from '../core/spec/environment.js';
import { FolderReadError, SafeFolder } from '../files/safeFolder.js';
import { importHarborTasks, type HarborImportOptions } from './harborImport.js';
import { idFromName } from './idFromName.js';
import type { ImportResult, SkippedItem } from './importReport.js';
import { convertTb1Task } from './tb1Convert.js';

export interface Tb1ImportOptions extends HarborImportOptions {
  /** Where the converted Harbor task folders are written (the specs' build contexts point into it). */
  harborOut: string;
  /** Replace converted folders that already exist. */
  force?: boolean;
}

/**
 * Terminal-Bench 1 task folders (or folders of them) as environment specs, through Harbor's layout: each task is
 * converted to a Harbor task folder under `harborOut/<name>/` (kept: it is the build context and what the specs
 * point at), which the Harbor importer then maps. What the conversion could not carry is reported with what the
 * Harbor import could not, item by item.
 */
export function importTb1Tasks(paths: readonly string[], options: Tb1ImportOptions): ImportResult<EnvironmentSpec> {
  const result: ImportResult<EnvironmentSpec> = { imported: [], skipped: [] };
  for (const p of paths) {
    const given = resolve(p);
    let folder: SafeFolder;
    try {
      folder = SafeFolder.open(given);
    } catch (err) {
      result.skipped.push({ source: given, reason: err instanceof FolderReadError ? err.reason : String(err) });
      continue;
    }
    const tasks = folder.has('task.yaml') ? [''] : folder.subfolders('').dirs.filter((d) => folder.has(`${d}/task.yaml`));
    if (tasks.length === 0) result.skipped.push({ source: given, reason: 'no Terminal-Bench 1 task here (a task folder has task.yaml, a Dockerfile and run-tests.sh)' });
    for (const rel of tasks) importOne(folder.sub(rel), rel ? join(given, rel) : given, options, result);
  }
  return result;
}

function importOne(task: SafeFolder, source: string, options: Tb1ImportOptions, result: ImportResult<EnvironmentSpec>): void {
  const skip = (reason: string): void => {
    result.skipped.push({ source, reason } satisfies SkippedItem);
  };
  let converted: ReturnType<typeof convertTb1Task>;
  try {
    converted = convertTb1Task(task);
  } catch (err) {
    skip(err instanceof FolderReadError ? err.message : `could not be read: ${err instanceof Error ? err.message : String(err)}`);
    return;
  }
  if ('reason' in converted) return skip(converted.reason);
  const name = idFromName(basename(source), 'tb1-task');
  const out = join(resolve(options.harborOut), name);
  if (existsSync(out)) {
    if (!options.force) return skip(`${out} already exists; pass --force to replace the converted folder`);
    rmSync(out, { recursive: true, force: true });
  }
  for (const f of converted.files) {
    mkdirSync(dirname(join(out, f.path)), { recursive: true });
    writeFileSync(join(out, f.path), f.content, { mode: f.mode });
  }
  const harbor = importHarborTasks([out], options);
  for (const s of harbor.skipped) skip(`converted to ${out}, then: ${s.reason}`);
  for (const item of harbor.imported) {
    item.spec.provenance = { ...item.spec.provenance, source: `terminal-bench-1:${source}`.slice(0, 1024) };
    (item.document as { provenance?: Record<string, string> }).provenance = { ...(item.document as { provenance?: Record<string, string> }).provenance, source: item.spec.provenance.source! };
    item.header = [`Imported from the Terminal-Bench 1 task ${source}, converted to the Harbor task ${out}.`, ...item.header.slice(1)];
    item.unmapped = [...converted.unmapped, ...item.unmapped];
    item.source = source;
    result.imported.push(item);
  }
}
