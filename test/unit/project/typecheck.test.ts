// The test layers run TypeScript through tsx, which strips types without checking them, and esbuild builds the same
// way: a type error in a test or a module landed on main unseen once (a namespace used as a type). tsc checks the
// whole project (src, test, bench, scripts per tsconfig.json) here, so the test command fails on it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

describe('the project', function () {
  it('type-checks with tsc (tsconfig.json, no emit)', function () {
    this.timeout(300_000);
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    const r = spawnSync(process.execPath, [tsc, '-p', '.', '--noEmit', '--pretty', 'false'], { encoding: 'utf8' });
    assert.equal(r.status, 0, `tsc found errors:\n${r.stdout}${r.stderr}`);
  });
});
