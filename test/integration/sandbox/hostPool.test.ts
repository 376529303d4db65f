import assert from 'node:assert/strict';
import { SandboxHostLostError } from '../../../src/core/ports/sandbox.js';
import type { Sandbox } from '../../../src/core/ports/sandbox.js';
import { DockerHostPool } from '../../../src/sandbox/docker/hostPool.js';
import { buildBaseImage } from '../../../src/sandbox/images/buildImage.js';
import { needService } from '../../support/services.js';
import { startExtraDockerd } from './extraDockerd.js';
import type { ExtraDockerd } from './extraDockerd.js';
import { dockerProblem, requestFor, testLabels } from './support.js';

describe('docker host pool over two real engines', function () {
  this.timeout(180_000);
  let a: ExtraDockerd | undefined;
  let b: ExtraDockerd | undefined;
  let pool: DockerHostPool | undefined;

  before(async function () {
    await needService(this, 'docker', () => dockerProblem());
    [a, b] = await Promise.all([startExtraDockerd(), startExtraDockerd()]);
    // The engines start empty: import the busybox base image into each (root folder already exported).
    for (const d of [a, b]) await buildBaseImage('busybox', { docker: d.docker });
  });
  after(async () => {
    await pool?.dispose();
    await Promise.all([a?.destroy(), b?.destroy()]);
  });

  it('places by load, drains a killed engine and retries its rollouts on the other', async () => {
    const drained: string[] = [];
    pool = new DockerHostPool([{ url: a!.url, maxContainers: 4 }, { url: b!.url, maxContainers: 4 }], {
      labels: testLabels,
      onHostChange: (host, state) => state === 'drained' && drained.push(host),
    });
    const first: Sandbox[] = [];
    for (let i = 0; i < 4; i++) first.push(await pool.start(requestFor()));
    assert.deepEqual(first.map((s) => s.host).sort(), [a!.url, a!.url, b!.url, b!.url].sort(), 'least-loaded placement alternates');

    // Kill B while one of its sandboxes runs a command.
    const onB = first.filter((s) => s.host === b!.url);
    const running = onB[0]!.exec('sleep 30', { timeoutMs: 60_000 });
    await new Promise((r) => setTimeout(r, 300));
    b!.crash();
    await assert.rejects(running, SandboxHostLostError);
    assert.deepEqual(drained, [b!.url]);
    await assert.rejects(onB[1]!.exec('true'), SandboxHostLostError);

    // The caller's retry: stop the lost sandboxes and start again; the pool now places only on A.
    for (const s of onB) await s.stop();
    const retried = await Promise.all([pool.start(requestFor()), pool.start(requestFor())]);
    assert.deepEqual(retried.map((s) => s.host), [a!.url, a!.url]);
    for (const s of retried) assert.equal((await s.exec('echo ok')).stdout, 'ok\n');
    assert.equal(pool.status().find((h) => h.url === a!.url)?.active, 4);
    await Promise.all([...first, ...retried].map((s) => s.stop()));
    assert.equal(pool.status().find((h) => h.url === a!.url)?.active, 0);
    assert.deepEqual(await a!.docker.listContainers({ all: true }), []);
  });
});
