import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { CancelledError } from '../../../src/core/ports/cancellation.js';
import type { SandboxRequest } from '../../../src/core/ports/sandbox.js';
import { limitsSchema } from '../../../src/core/spec/environment.js';
import { createSandboxBackend } from '../../../src/sandbox/factory.js';
import { SandboxSetupError } from '../../../src/sandbox/setup.js';

// The process backend runs host shells; these tests are fast and need no service.
const request = (over: Partial<SandboxRequest> = {}): SandboxRequest => ({
  image: 'unused',
  workdir: '/workspace',
  files: [{ path: 'data/in.txt', content: 'hello\n' }, { path: 'run.sh', content: '#!/bin/sh\necho ran\n', mode: '755' }],
  setup: ['echo prepared > prepared.txt'],
  env: { GREETING: 'hi' },
  limits: limitsSchema.parse({}),
  labels: {},
  ...over,
});

describe('process backend (unsandboxed)', () => {
  const warnings: string[] = [];
  const backend = createSandboxBackend('process', { warn: (m) => warnings.push(m) });
  after(() => backend.dispose());

  it('warns that it is not a sandbox, on creation and on every start', async () => {
    assert.match(warnings[0] ?? '', /NOT a sandbox/);
    const s = await backend.start(request());
    await s.stop();
    assert.ok(warnings.length >= 2);
  });

  it('writes files with their mode, runs setup, sees env, stdin and exit codes', async () => {
    const s = await backend.start(request());
    try {
      const r = await s.exec('cat data/in.txt; ./run.sh; cat prepared.txt; echo "$GREETING"; cat; echo err >&2; exit 3', { stdin: 'from-stdin\n' });
      assert.equal(r.stdout, 'hello\nran\nprepared\nhi\nfrom-stdin\n');
      assert.equal(r.stderr, 'err\n');
      assert.equal(r.exitCode, 3);
      assert.equal(r.timedOut, false);
      assert.equal((await s.getFile('/workspace/prepared.txt'))?.toString(), 'prepared\n');
      assert.equal(await s.getFile('missing.txt'), undefined);
      await s.putFiles([{ path: 'later.txt', content: 'x' }]);
      assert.equal((await s.exec('cat later.txt')).stdout, 'x');
    } finally {
      await s.stop();
    }
  });

  it('times out, killing the whole process group', async () => {
    const s = await backend.start(request({ setup: [] }));
    try {
      const r = await s.exec('sleep 30 & sleep 30; echo never', { timeoutMs: 300 });
      assert.equal(r.timedOut, true);
      assert.equal(r.exitCode, 124);
      assert.doesNotMatch(r.stdout, /never/);
    } finally {
      await s.stop();
    }
  });

  it('caps output, keeping head and tail', async () => {
    const s = await backend.start(request({ setup: [] }));
    try {
      const r = await s.exec('echo START; seq 1 100000; echo END', { maxOutputBytes: 2048 });
      assert.equal(r.truncated, true);
      assert.match(r.stdout, /^START\n/);
      assert.match(r.stdout, /END\n$/);
      assert.match(r.stdout, /bytes of output cut/);
      assert.ok(r.stdout.length < 2300);
    } finally {
      await s.stop();
    }
  });

  it('kills the command when cancelled', async () => {
    const s = await backend.start(request({ setup: [] }));
    try {
      const ac = new AbortController();
      setTimeout(() => ac.abort(), 100);
      await assert.rejects(s.exec('sleep 30', { signal: ac.signal }), CancelledError);
    } finally {
      await s.stop();
    }
  });

  it('reports a failing setup command and removes the workspace', async () => {
    await assert.rejects(backend.start(request({ setup: ['true', 'echo broken >&2; exit 7'] })), (err: unknown) => {
      assert.ok(err instanceof SandboxSetupError);
      assert.equal(err.index, 1);
      assert.match(err.message, /exit code 7.*\n.*broken/s);
      return true;
    });
  });

  it('removes its workspace on stop', async () => {
    const s = await backend.start(request({ setup: [] }));
    const dir = (await s.exec('pwd')).stdout.trim();
    assert.ok(existsSync(dir));
    await s.stop();
    await s.stop();
    assert.ok(!existsSync(dir));
  });
});
