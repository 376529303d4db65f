import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

describe('extension commands', () => {
  it('are registered only through commandRegistrar (one place ties each command to the context)', () => {
    const direct = readdirSync('src/extension', { withFileTypes: true, recursive: true })
      .filter((e) => e.isFile() && e.name.endsWith('.ts'))
      .map((e) => relative('.', join(e.parentPath, e.name)))
      .filter((f) => f !== 'src/extension/commandRegistrar.ts' && /\bcommands\.registerCommand\b/.test(readFileSync(f, 'utf8')));
    assert.deepEqual(direct, [], `call vscode.commands.registerCommand directly: ${direct.join(', ')}`);
  });
});
