import { lstatSync, renameSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { SafeFolder } from '../files/safeFolder.js';

/** The suffix of a damaged record kept beside the one that replaces it: `<id>.json.damaged`, `.damaged-2`, ... */
export const damagedSuffix = /\.damaged(-\d+)?$/;

const exists = (path: string): boolean => {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
};

/**
 * Before resume plays a rollout again over its damaged file: the file (and its token sidecar) is renamed to a free
 * `<name>.damaged[-N]` beside it, so nothing the run recorded is overwritten. Only the name moves: rename never
 * follows a link, and the folder it happens in is checked to be inside the run directory. Returns the kept files'
 * paths relative to the run directory.
 */
export function keepDamagedRecord(runDir: string, rels: readonly string[]): string[] {
  const folder = SafeFolder.open(runDir, { boundaryName: 'the run directory' });
  const kept: string[] = [];
  for (const rel of rels) {
    const parent = folder.entry(dirname(rel));
    if (parent.kind !== 'dir') continue;
    const from = join(parent.real, basename(rel));
    if (!exists(from)) continue;
    let name = `${basename(rel)}.damaged`;
    for (let i = 2; exists(join(parent.real, name)); i++) name = `${basename(rel)}.damaged-${i}`;
    renameSync(from, join(parent.real, name));
    kept.push(`${dirname(rel)}/${name}`);
  }
  return kept;
}
