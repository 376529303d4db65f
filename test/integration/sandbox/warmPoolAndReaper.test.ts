import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import Docker from 'dockerode';
import { DockerBackend } from '../../../src/sandbox/docker/dockerBackend.js';
import { WarmPool } from '../../../src/sandbox/docker/warmPool.js';
import { reapStale } from '../../../src/sandbox/reaper.js';
import { needService } from '../../support/services.js';
import { dockerProblem, leftovers, requestFor, testLabels } from './support.js';

describe('warm pool and reaper', function () {
  this.timeout(120_000);
  before(async function () {
    await needService(this, 'docker', () => dockerProblem());
  });

  it('hands out pre-started sandboxes and refills in the background', async () => {
    const pool = new WarmPool(new DockerBackend({ labels: testLabels }), { size: 2, labels: testLabels });
    try {
      const req = requestFor({ files: [{ path: 'f.txt', content: 'warm' }] });
      await pool.prewarm(req);
      assert.equal(pool.idleCount, 2);
      const s = await pool.start(req);
      assert.equal((await s.exec('cat f.txt')).stdout, 'warm');
      await s.stop();
      for (let i = 0; i < 100 && pool.idleCount < 2; i++) await new Promise((r) => setTimeout(r, 50));
      // Refilled to its size; the stopped container may come back scrubbed on top of that (the pool keeps up to twice
      // its size of recycled ones idle), depending on whether its scrub or the refill's launch finished first.
      assert.ok(pool.idleCount >= 2 && pool.idleCount <= 4, `refilled: ${pool.idleCount} idle`);
    } finally {
      await pool.dispose();
    }
    assert.deepEqual(await leftovers(), { containers: [], volumes: [] });
  });

  it('removes what a kill -9 of a run left behind', async () => {
    // A real run process that starts a sandbox and is killed before it can clean up.
    const child = spawn(process.execPath, ['--import=tsx', fileURLToPath(new URL('../../fixtures/sandbox/orphanRun.ts', import.meta.url))], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (c: Buffer) => c.toString().includes('started') && resolve());
      child.once('exit', (code) => reject(new Error(`run process exited early (${code})`)));
    });
    const runPid = child.pid as number;
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const before = await leftovers(new Docker(), runPid);
    assert.equal(before.containers.length, 1);
    const report = await reapStale();
    assert.ok(report.containers >= 1 && report.volumes >= 1);
    assert.deepEqual(await leftovers(new Docker(), runPid), { containers: [], volumes: [] });
  });
});
