import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The packages the CLI evaluates before it does anything: the real entry run as node runs it (through tsx, CommonJS),
 * with a preload that lists require.cache's packages at exit. The Docker client and the model SDK (with ssh2 and the
 * gRPC stack) are evaluated on first use only, so `coevolve view`, `validate` or `--help` do not pay for them.
 */
function packagesLoadedBy(args: string[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'coevolve-lazy-'));
  try {
    const probe = join(dir, 'probe.cjs');
    const out = join(dir, 'packages.json');
    writeFileSync(probe, `process.on('exit', () => {
      const names = Object.keys(require.cache).map((k) => /node_modules\\/((@[^/]+\\/)?[^/]+)/.exec(k)?.[1]).filter(Boolean);
      require('node:fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify([...new Set(names)].sort()));
    });`);
    const r = spawnSync(process.execPath, ['--import=tsx', '--require', probe, 'src/cli/main.ts', ...args], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(readFileSync(out, 'utf8')) as string[];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the CLI evaluates no Docker client or model SDK at start', function () {
  this.timeout(120_000);
  for (const args of [['--version'], ['view', '--help'], ['validate', '--help']]) {
    it(`coevolve ${args.join(' ')}`, () => {
      const loaded = packagesLoadedBy(args);
      assert.ok(loaded.includes('commander') && loaded.includes('zod'), `the probe sees the CLI's own packages: ${loaded.join(', ')}`);
      const heavy = loaded.filter((p) => ['dockerode', 'docker-modem', 'ssh2', '@grpc/grpc-js', 'protobufjs', 'openai'].includes(p));
      assert.deepEqual(heavy, [], `evaluated at start: ${heavy.join(', ')}`);
    });
  }
});
