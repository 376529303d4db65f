import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';

const entry = resolve('src/extension/extension.ts');

/** Relative imports of a source file, type-only and dynamic ones included, as .ts paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g)) {
    const target = resolve(dirname(file), m[1]!.replace(/\.js$/, '.ts'));
    if (existsSync(target)) out.push(target);
  }
  return out;
}

/** Every source file the extension's entry reaches through imports (type imports too: api.ts is only that). */
function reachable(): Set<string> {
  const seen = new Set<string>([entry]);
  const queue = [entry];
  while (queue.length > 0) {
    for (const f of importsOf(queue.shift() as string)) {
      if (seen.has(f)) continue;
      seen.add(f);
      queue.push(f);
    }
  }
  return seen;
}

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => resolve(e.parentPath, e.name));
}

describe('extension sources', () => {
  it('are all reached from the extension entry (no file left over from an earlier shell)', () => {
    const seen = reachable();
    const dead = sourcesUnder('src/extension').filter((f) => !seen.has(f)).map((f) => relative('.', f));
    assert.deepEqual(dead, [], `not imported by anything the extension loads: ${dead.join(', ')}`);
  });
});
