import assert from 'node:assert/strict';
import { CancelledError } from '../../../src/core/ports/cancellation.js';
import { SandboxImageMissingError } from '../../../src/core/ports/sandbox.js';
import { DockerBackend } from '../../../src/sandbox/docker/dockerBackend.js';
import { needService } from '../../support/services.js';
import { dockerProblem, leftovers, requestFor, testLabels } from './support.js';

describe('docker backend', function () {
  const backend = new DockerBackend({ labels: testLabels });
  before(async function () {
    await needService(this, 'docker', () => dockerProblem());
  });
  after(async () => {
    await backend.dispose();
  });

  it('runs files, setup, env, stdin and exit codes as the agent user', async () => {
    const s = await backend.start(requestFor({
      files: [{ path: 'data/in.txt', content: 'hello\n' }, { path: 'run.sh', content: '#!/bin/sh\necho ran\n', mode: '755' }],
      setup: ['echo prepared > prepared.txt'],
      env: { GREETING: 'hi' },
    }));
    try {
      const r = await s.exec('cat data/in.txt; ./run.sh; cat prepared.txt; echo "$GREETING"; cat; id -u; echo err >&2; exit 3', { stdin: 'from-stdin\n' });
      assert.equal(r.stderr, 'err\n');
      assert.equal(r.stdout, 'hello\nran\nprepared\nhi\nfrom-stdin\n65534\n');
      assert.equal(r.exitCode, 3);
      assert.equal(r.timedOut, false);
      // The agent can edit what files and setup made, and create new files.
      assert.equal((await s.exec('echo more >> prepared.txt && echo x > data/new.txt && echo ok')).stdout, 'ok\n');
      assert.equal((await s.exec('id -u', { privileged: true })).stdout, '0\n');
      assert.equal((await s.getFile('prepared.txt'))?.toString(), 'prepared\nmore\n');
      assert.equal(await s.getFile('/workspace/missing'), undefined);
      await s.exec('mkdir -p /tmp/coevolve && echo 1 > /tmp/coevolve/reward.txt', { privileged: true });
      assert.equal((await s.getFile('/tmp/coevolve/reward.txt'))?.toString(), '1\n');
      await s.putFiles([{ path: 'tests/t.sh', content: 'echo t', mode: '700' }]);
      assert.equal((await s.exec('sh tests/t.sh; stat -c %a tests/t.sh')).stdout, 't\n700\n');
    } finally {
      await s.stop();
    }
  });

  it('times out a command and its background children', async () => {
    const s = await backend.start(requestFor());
    try {
      const r = await s.exec('sleep 100 & sleep 100; echo never', { timeoutMs: 1000 });
      assert.equal(r.timedOut, true);
      assert.equal(r.exitCode, 124);
      const ps = await s.exec('ps -o comm | grep -c "^sleep" || true', { privileged: true });
      assert.equal(ps.stdout.trim(), '1', 'only the keep-alive sleep remains');
    } finally {
      await s.stop();
    }
  });

  it('cancels a running command', async () => {
    const s = await backend.start(requestFor());
    try {
      const ac = new AbortController();
      setTimeout(() => ac.abort(), 300);
      await assert.rejects(s.exec('sleep 100', { signal: ac.signal }), CancelledError);
      assert.equal((await s.exec('echo alive')).stdout, 'alive\n');
    } finally {
      await s.stop();
    }
  });

  it('says how to build a missing image and leaves nothing behind', async () => {
    await assert.rejects(backend.start(requestFor({ image: 'coevolve/never-built:nope' })), (err: unknown) => {
      assert.ok(err instanceof SandboxImageMissingError);
      assert.match(err.message, /coevolve sandbox build-image/);
      return true;
    });
  });

  it('removes its container and volume on stop', async () => {
    const s = await backend.start(requestFor({ files: [{ path: 'a', content: 'b' }] }));
    await s.stop();
    await s.stop();
    assert.deepEqual(await leftovers(), { containers: [], volumes: [] });
  });
});
