import assert from 'node:assert/strict';
import Docker from 'dockerode';
import type { ExecOptions, Sandbox } from '../../../src/core/ports/sandbox.js';
import { DockerBackend } from '../../../src/sandbox/docker/dockerBackend.js';
import type { DockerSandbox } from '../../../src/sandbox/docker/dockerSandbox.js';
import { WarmPool } from '../../../src/sandbox/docker/warmPool.js';
import { needService } from '../../support/services.js';
import { debianImage, dockerProblem, leftovers, requestFor, testLabels } from './support.js';

/** Every command through the channel, never the exec fallback. */
async function run(box: Sandbox, command: string, options: ExecOptions = {}): Promise<string> {
  const r = await box.exec(command, { timeoutMs: 20_000, ...options });
  assert.equal(r.via, 'channel', `${command}: served by ${r.via}`);
  return r.stdout;
}

async function waitRecycled(pool: WarmPool, n: number): Promise<void> {
  for (let i = 0; i < 400 && pool.recycled < n; i++) await new Promise((r) => setTimeout(r, 25));
  assert.equal(pool.recycled, n, 'the container was recycled');
}

/** What a rollout could leave for the next one, and what the next one sees of it. */
const plantAsAgent = `cd /workspace && mkdir -p a/b && echo secret > a/b/answer && ln -s /etc/passwd link && chmod 0777 /workspace
echo secret > /tmp/answer; mkdir -p /tmp/d; echo secret > /dev/shm/answer; echo secret > /logs/agent/answer; echo secret > /logs/artifacts/answer
(setsid sleep 1000 >/dev/null 2>&1 &); nohup sleep 999 >/dev/null 2>&1 & echo planted`;
const plantAsRoot = `echo secret > /tests/answer; echo 1 > /logs/verifier/reward.txt; echo secret > /run/coevolve/answer; (setsid sleep 998 >/dev/null 2>&1 &); echo planted`;
const look = `for d in /workspace /tmp /dev/shm /logs/agent /logs/artifacts; do echo "$d: $(ls -A $d | tr '\\n' ' ')"; done; stat -c '%a %u' /workspace; ps -o user,args | grep -c 'sleep 99[0-9]' || true`;

describe('recycled docker containers (warm pool)', function () {
  this.timeout(180_000);
  before(async function () {
    await needService(this, 'docker', () => dockerProblem());
  });

  it('a container serves the next rollout only scrubbed, with new channels, and nothing of the last one is left', async () => {
    const pool = new WarmPool(new DockerBackend({ labels: testLabels }), { size: 1, labels: testLabels });
    try {
      const first = (await pool.start(requestFor())) as DockerSandbox;
      assert.equal(await run(first, plantAsAgent), 'planted\n');
      assert.equal(await run(first, plantAsRoot, { as: 'verifier' }), 'planted\n');
      const firstPids = await run(first, 'echo $PPID');
      await first.stop();
      await assert.rejects(first.exec('true'), /stopped/, 'the old lease is finished');
      await waitRecycled(pool, 1);
      // The pool holds one idle container; the recycled one is the next in line once that one is taken.
      const boxes = [(await pool.start(requestFor())) as DockerSandbox, (await pool.start(requestFor())) as DockerSandbox];
      const again = boxes.find((b) => b.id === first.id);
      assert.ok(again, 'the same container served a later rollout');
      assert.equal(again.uses, 2);
      assert.notEqual(await run(again, 'echo $PPID'), firstPids, 'new supervisors');
      assert.equal(await run(again, look), '/workspace: \n/tmp: \n/dev/shm: \n/logs/agent: \n/logs/artifacts: \n755 65534\n0\n');
      assert.equal(await run(again, 'ls -A /tests /logs/verifier /run/coevolve; ps -o args | grep -c "sleep 99[0-9]" || true', { as: 'verifier' }), '/logs/verifier:\n\n/run/coevolve:\nchannel\n\n/tests:\n0\n');
      for (const b of boxes) await b.stop();
    } finally {
      await pool.dispose();
    }
    assert.deepEqual(await leftovers(), { containers: [], volumes: [] });
  });

  it('SysV IPC objects of the agent are removed before the container serves again', async function () {
    const problem = await dockerProblem(debianImage);
    if (problem) this.skip();
    const pool = new WarmPool(new DockerBackend({ labels: testLabels }), { size: 1, labels: testLabels });
    try {
      const req = requestFor({ image: debianImage });
      const first = (await pool.start(req)) as DockerSandbox;
      await run(first, 'ipcmk -M 4096 && ipcmk -Q && ipcmk -S 1');
      assert.equal((await run(first, 'ipcs | grep -c nobody')).trim(), '3');
      await first.stop();
      await waitRecycled(pool, 1);
      const boxes = [(await pool.start(req)) as DockerSandbox, (await pool.start(req)) as DockerSandbox];
      const again = boxes.find((b) => b.id === first.id);
      assert.ok(again);
      assert.equal((await run(again, 'ipcs | grep -c nobody || true')).trim(), '0');
      for (const b of boxes) await b.stop();
    } finally {
      await pool.dispose();
    }
    assert.deepEqual(await leftovers(), { containers: [], volumes: [] });
  });

  it('a container whose /dev a root command changed is removed, not recycled', async () => {
    const pool = new WarmPool(new DockerBackend({ labels: testLabels }), { size: 1, labels: testLabels });
    try {
      const first = (await pool.start(requestFor())) as DockerSandbox;
      await run(first, 'ln -s /tmp/answer /dev/answer', { as: 'verifier' });
      await first.stop();
      for (let i = 0; i < 200 && (await new Docker().getContainer(first.container.id).inspect().then(() => true, () => false)); i++) await new Promise((r) => setTimeout(r, 25));
      assert.equal(await new Docker().getContainer(first.container.id).inspect().then(() => true, () => false), false, 'removed');
      assert.equal(pool.recycled, 0);
    } finally {
      await pool.dispose();
    }
    assert.deepEqual(await leftovers(), { containers: [], volumes: [] });
  });

  it('recycle: false removes every container after its rollout', async () => {
    const pool = new WarmPool(new DockerBackend({ labels: testLabels }), { size: 1, labels: testLabels, recycle: false });
    try {
      const first = (await pool.start(requestFor())) as DockerSandbox;
      await first.stop();
      assert.equal(await new Docker().getContainer(first.container.id).inspect().then(() => true, () => false), false);
    } finally {
      await pool.dispose();
    }
    assert.equal(pool.recycled, 0);
    assert.deepEqual(await leftovers(), { containers: [], volumes: [] });
  });
});
