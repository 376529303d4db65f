import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { CancelledError } from '../../../src/core/ports/cancellation.js';
import { BwrapBackend } from '../../../src/sandbox/bwrap/bwrapBackend.js';
import { needService } from '../../support/services.js';
import { bwrapProblem, requestFor } from './support.js';

for (const mode of ['rootfs', 'host-usr'] as const) {
  describe(`bwrap backend (${mode})`, function () {
    // An image with no exported rootfs makes the backend use the host /usr view.
    const backend = new BwrapBackend();
    const image = mode === 'rootfs' ? 'coevolve/busybox:latest' : 'no-exported-rootfs:latest';
    before(async function () {
      await needService(this, 'bwrap', bwrapProblem);
    });
    after(() => backend.dispose());

    it('runs files, setup, env, stdin and exit codes as uid 65534 without network', async () => {
      const s = await backend.start(requestFor({
        image,
        files: [{ path: 'data/in.txt', content: 'hello\n' }, { path: 'run.sh', content: '#!/bin/sh\necho ran\n', mode: '755' }],
        setup: ['echo prepared > prepared.txt'],
        env: { GREETING: 'hi' },
      }));
      try {
        const r = await s.exec('cat data/in.txt; ./run.sh; cat prepared.txt; echo "$GREETING"; cat; id -u; echo err >&2; exit 3', { stdin: 'from-stdin\n' });
        assert.equal(r.stderr, 'err\n');
        assert.equal(r.stdout, 'hello\nran\nprepared\nhi\nfrom-stdin\n65534\n');
        assert.equal(r.exitCode, 3);
        assert.equal((await s.exec('echo more >> prepared.txt && echo ok')).stdout, 'ok\n');
        assert.equal((await s.getFile('/workspace/prepared.txt'))?.toString(), 'prepared\nmore\n');
        await s.exec('mkdir -p /tmp/coevolve && echo 1 > /tmp/coevolve/reward.txt', { privileged: true });
        assert.equal((await s.getFile('/tmp/coevolve/reward.txt'))?.toString(), '1\n');
        const net = await s.exec('cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d " "');
        assert.equal(net.stdout.trim(), 'lo');
      } finally {
        await s.stop();
      }
    });

    it('times out and cancels, killing the whole tree', async () => {
      const s = await backend.start(requestFor({ image }));
      try {
        const r = await s.exec('sleep 100 & sleep 100; echo never', { timeoutMs: 500 });
        assert.equal(r.timedOut, true);
        assert.equal(r.exitCode, 124);
        const ac = new AbortController();
        setTimeout(() => ac.abort(), 100);
        await assert.rejects(s.exec('sleep 100', { signal: ac.signal }), CancelledError);
        const left = spawnSync('pgrep', ['-f', 'sleep 100']).stdout.toString().trim();
        assert.equal(left, '');
      } finally {
        await s.stop();
      }
    });
  });
}
