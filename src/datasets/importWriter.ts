import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ImportResult } from './importReport.js';
import { renderSpecYaml } from './specYaml.js';

/**
 * Writes each imported spec as `<outDir>/<id><suffix>` (".env.yaml", ".user.yaml"). An existing file is left alone
 * unless `force`; that item moves to the skipped list with the reason.
 */
export function writeImported<T>(result: ImportResult<T>, outDir: string, suffix: string, force: boolean): void {
  mkdirSync(outDir, { recursive: true });
  const kept = [];
  for (const item of result.imported) {
    const file = join(outDir, `${item.id}${suffix}`);
    if (existsSync(file) && !force) {
      result.skipped.push({ source: item.source, reason: `${file} exists; pass --force to overwrite it` });
      continue;
    }
    writeFileSync(file, renderSpecYaml(item.document, item.header));
    item.file = file;
    kept.push(item);
  }
  result.imported = kept;
}
