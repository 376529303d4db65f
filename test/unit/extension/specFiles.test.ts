import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { specSuffixes } from '../../../src/core/spec/kinds.js';
import { excludedFolders, specFileGlob } from '../../../src/extension/specs/specFiles.js';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => relative('.', join(e.parentPath, e.name)));
}

describe('which files the editor treats as specs', () => {
  it('finds every kind the core knows by its suffix, .yaml and .yml', () => {
    const [, kinds, exts] = /^\*\*\/\*\.\{([^}]+)\}\.\{([^}]+)\}$/.exec(specFileGlob) ?? [];
    assert.ok(kinds && exts, `a glob of kinds and extensions: ${specFileGlob}`);
    assert.deepEqual(kinds.split(',').sort(), specSuffixes.map((s) => s.split('.')[1]).sort());
    assert.deepEqual(exts.split(','), ['yaml', 'yml']);
    assert.match(excludedFolders, /node_modules/);
  });

  it('defines the glob and the excluded folders once (live diagnostics and the validate command share them)', () => {
    const defining = (name: string): string[] => sources('src').filter((f) => new RegExp(`\\bconst ${name}\\b`).test(readFileSync(f, 'utf8')));
    assert.deepEqual(defining('specFileGlob'), ['src/extension/specs/specFiles.ts']);
    assert.deepEqual(defining('excludedFolders'), ['src/extension/specs/specFiles.ts']);
    const literal = sources('src').filter((f) => readFileSync(f, 'utf8').includes('{env,user,run,agent}'));
    assert.deepEqual(literal, ['src/extension/specs/specFiles.ts'], 'no other copy of the glob');
  });
});
