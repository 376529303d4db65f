// Files and folders named on the command line, checked before anything reads them, so a wrong path gets a sentence
// saying what is wrong and what to give instead, never a raw ENOENT / EISDIR.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { parse } from 'yaml';
import { isSpecKind, kindFromFileName, specKindInfo, type SpecKind } from '../core/spec/kinds.js';
import { readSpecTextSync } from '../specs/workspace.js';
import { runLayout } from '../store/layout.js';
import { UserError } from './errors.js';

const shown = (path: string): string => relative(process.cwd(), path) || path;

function errnoMessage(err: unknown, path: string): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return `${shown(path)} does not exist`;
  if (code === 'EACCES' || code === 'EPERM') return `${shown(path)} cannot be read: permission denied`;
  return `${shown(path)} cannot be read: ${err instanceof Error ? err.message : String(err)}`;
}

/** Files of one spec kind in a folder (not recursive), for "did you mean" lines. */
function specFilesIn(dir: string, kind: SpecKind): string[] {
  try {
    return readdirSync(dir).filter((n) => kindFromFileName(n) === kind).sort().map((n) => join(dir, n));
  } catch {
    return [];
  }
}

/** The `kind:` a YAML text declares, if it parses that far. */
function declaredKind(text: string): SpecKind | undefined {
  try {
    const doc = parse(text) as { kind?: unknown } | null;
    return doc && typeof doc === 'object' && isSpecKind(doc.kind) ? doc.kind : undefined;
  } catch {
    return undefined;
  }
}

const article = (kind: SpecKind): string => (kind === 'Environment' || kind === 'Agent' ? 'an' : 'a');

const nextStep: Record<SpecKind, string> = {
  Environment: 'list it under population.environments of a run config, or play it once from the editor (Coevolve: Play Environment)',
  User: 'list it under population.users of a run config',
  Agent: 'name it as the agent of a run config',
  Run: 'run it with `coevolve run`',
};

/**
 * Reads a spec file the user named for a command that takes `want` (e.g. `coevolve run` takes a Run config):
 * a missing file, a folder, an unreadable file or a spec of another kind is a UserError that says so.
 */
export function readSpecArg(path: string, want: SpecKind, command: string): string {
  let isDir = false;
  try {
    isDir = statSync(path).isDirectory();
  } catch (err) {
    const near = specFilesIn(join(path, '..'), want).slice(0, 3).map(shown);
    throw new UserError(`${errnoMessage(err, path)}${near.length ? `; ${specKindInfo[want].suffix} files next to it: ${near.join(', ')}` : ''}`);
  }
  if (isDir) {
    const inside = specFilesIn(path, want).map(shown);
    throw new UserError(`${shown(path)} is a folder; \`${command}\` takes a ${want} spec file (*${specKindInfo[want].suffix})${inside.length ? `, e.g. ${inside.slice(0, 3).join(', ')}` : ` and there is none in it (\`coevolve init\` writes examples)`}`);
  }
  let text: string;
  try {
    text = readSpecTextSync(path, shown(path)); // bounded: no FIFO, device or oversized file is read
  } catch (err) {
    throw new UserError(err instanceof Error ? err.message : String(err));
  }
  const kind = declaredKind(text) ?? kindFromFileName(basename(path));
  if (kind && kind !== want) {
    throw new UserError(`${shown(path)} is ${article(kind)} ${kind} spec (kind: ${kind}); \`${command}\` takes ${article(want)} ${want} spec (*${specKindInfo[want].suffix}). To use this ${kind.toLowerCase()}, ${nextStep[kind]}.`);
  }
  return text;
}

/** Run directories directly inside a folder, newest first (names end with the start time). */
function runsIn(dir: string): string[] {
  try {
    return readdirSync(dir).filter((n) => existsSync(runLayout.manifest(join(dir, n)))).sort().reverse().map((n) => join(dir, n));
  } catch {
    return [];
  }
}

/** Checks that a path names a run directory; a folder of runs, a file or a missing path gets a sentence saying which. */
export function checkRunDirArg(path: string): void {
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch (err) {
    throw new UserError(errnoMessage(err, path));
  }
  if (!isDir) throw new UserError(`${shown(path)} is a file; give a run directory (the folder \`coevolve run\` wrote, e.g. runs/demo-20261201-091916)`);
  if (existsSync(runLayout.manifest(path))) return;
  const runs = runsIn(path);
  if (runs.length > 0) throw new UserError(`${shown(path)} is a folder of runs, not a run; name one of them, e.g. ${shown(runs[0] as string)}${runs.length > 1 ? ` (${runs.length} runs in it)` : ''}`);
  throw new UserError(`${shown(path)} is not a Coevolve run directory (it has no manifest.json); runs are the folders \`coevolve run\` writes under its --out folder (default runs/)`);
}
