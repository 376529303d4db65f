// Issue 11 (verifier layout): the rootfs builder makes /tests and /logs/verifier itself. Before, only bwrap added
// them, to the shared root in ~/.cache, the first time a sandbox started on a root built without them. A root just
// built must be usable read-only as it is: starting a sandbox on it and verifying changes nothing in it.
import assert from 'node:assert/strict';
import { lstatSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { BwrapBackend } from '../../../src/sandbox/bwrap/bwrapBackend.js';
import { buildBusyboxRootfs } from '../../../src/sandbox/images/rootfs.js';
import { needService } from '../../support/services.js';
import { bwrapProblem, requestFor } from './support.js';

/** Every entry of the tree with its type and mode, to compare before and after. */
function snapshot(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = lstatSync(p);
      out.push(`${relative(root, p)} ${st.isDirectory() ? 'd' : st.isSymbolicLink() ? 'l' : 'f'} ${(st.mode & 0o7777).toString(8)}`);
      if (st.isDirectory()) walk(p);
    }
  };
  walk(root);
  return out;
}

describe('the rootfs builder makes the verifier folders (bwrap)', function () {
  this.timeout(120_000);
  let tmp: string;
  before(async function () {
    await needService(this, 'bwrap', bwrapProblem);
    tmp = mkdtempSync(join(tmpdir(), 'coevolve-rootfs-'));
  });
  after(() => tmp && rmSync(tmp, { recursive: true, force: true }));

  it('a fresh busybox root has empty /tests and /logs/verifier (755), and a verifier runs on it without changing it', async () => {
    const root = join(tmp, 'busybox');
    await buildBusyboxRootfs(root);
    for (const p of ['tests', 'logs/verifier', 'workspace']) {
      const st = statSync(join(root, p));
      assert.ok(st.isDirectory(), `${p} is a folder`);
      assert.equal((st.mode & 0o7777).toString(8), '755', `${p} mode`);
      assert.deepEqual(readdirSync(join(root, p)), [], `${p} is empty`);
    }
    const before = snapshot(root);
    const backend = new BwrapBackend({ rootfs: root });
    const s = await backend.start(requestFor());
    try {
      await s.putFiles([{ path: 'want.txt', content: '0.5\n' }], { under: 'tests' });
      const r = await s.exec('cat /tests/want.txt > /logs/verifier/reward.txt && ls /tests', { as: 'verifier' });
      assert.equal(r.exitCode, 0, r.stderr);
      assert.equal((await s.exec('ls -A /tests /logs/verifier 2>&1; true')).stdout.includes('want.txt'), false, 'the agent sees none of it');
    } finally {
      await s.stop();
      await backend.dispose();
    }
    assert.deepEqual(snapshot(root), before, 'the root is as the builder left it');
  });
});
