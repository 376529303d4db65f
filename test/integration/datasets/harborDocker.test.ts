// An exported Harbor task really runs: its Dockerfile builds on the local base image, the oracle (solution/solve.sh)
// then tests/test.sh leave reward 1 in /logs/verifier/reward.txt, and without the oracle the reward is 0 — the
// way a Harbor harness would run it (tests and solution mounted at /tests and /solution after the build).
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { writeSyntheticRun, type SyntheticRun } from '../../../bench/datasets/syntheticRun.js';
import { exportRun } from '../../../src/datasets/exportRun.js';
import { needService } from '../../support/services.js';
import { busyboxImage, dockerProblem, testLabels } from '../sandbox/support.js';

function listFiles(root: string, rel = ''): string[] {
  return readdirSync(join(root, rel), { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? listFiles(root, join(rel, d.name)) : [join(rel, d.name)]));
}

async function build(docker: Docker, context: string, tag: string): Promise<void> {
  const stream = await docker.buildImage({ context, src: listFiles(context) }, { t: tag, labels: testLabels, networkmode: 'none' });
  const events = await new Promise<{ error?: string; errorDetail?: { message: string } }[]>((resolve, reject) => {
    docker.modem.followProgress(stream, (err: Error | null, res: unknown[]) => (err ? reject(err) : resolve(res as { error?: string }[])));
  });
  const failed = events.find((e) => e.error);
  if (failed) throw new Error(`docker build of ${context} failed: ${failed.error}`);
}

/** Runs a command in a fresh container of the image with the task's tests and solution mounted; returns stdout. */
async function runIn(docker: Docker, image: string, task: string, cmd: string): Promise<string> {
  const container = await docker.createContainer({
    Image: image,
    Cmd: ['sh', '-c', cmd],
    Labels: { ...testLabels, 'coevolve.owner-pid': String(process.pid) },
    NetworkDisabled: true,
    HostConfig: { Binds: [`${join(task, 'tests')}:/tests:ro`, `${join(task, 'solution')}:/solution:ro`], NetworkMode: 'none' },
  });
  try {
    await container.start();
    await container.wait();
    const logs = await container.logs({ stdout: true, stderr: false });
    // The log stream is multiplexed (8-byte frame headers); keep the payloads.
    const buf = Buffer.isBuffer(logs) ? logs : Buffer.from(logs as unknown as string);
    let out = '';
    for (let i = 0; i + 8 <= buf.length;) {
      const len = buf.readUInt32BE(i + 4);
      out += buf.subarray(i + 8, i + 8 + len).toString('utf8');
      i += 8 + len;
    }
    return out;
  } finally {
    await container.remove({ force: true });
  }
}

describe('exported Harbor tasks run in Docker', function () {
  this.timeout(300_000);
  const docker = new Docker();
  let tmp: string;
  let run: SyntheticRun;
  const tags: string[] = [];

  before(async function () {
    await needService(this, 'docker', () => dockerProblem(busyboxImage));
    tmp = mkdtempSync(join(tmpdir(), 'coevolve-harbor-docker-'));
    run = await writeSyntheticRun(join(tmp, 'runs'), { lineages: 1, childrenPerLineage: 1, rolloutsPerEnv: 1, writer: 'store' });
    await exportRun(run.dir, { format: 'harbor', outDir: join(tmp, 'export'), filter: 'all' });
  });
  after(async () => {
    for (const t of tags) await docker.getImage(t).remove({ force: true }).catch(() => undefined);
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('builds each task, and the oracle earns reward 1 while doing nothing earns 0', async () => {
    for (const env of run.environments) {
      const task = join(tmp, 'export', 'tasks', env.id);
      const tag = `coevolve-test/harbor-${env.id}:${process.pid}`;
      await build(docker, join(task, 'environment'), tag);
      tags.push(tag);
      const setupRan = await runIn(docker, tag, task, 'cat out/ready.txt; echo "$SERVICE_REGION"; ls');
      assert.match(setupRan, /prepared for lineage 0/, 'setup ran at build time in the workdir');
      assert.match(setupRan, /^eu$/m, 'sandbox env is in the image');
      assert.match(setupRan, /app\.log/, 'workspace files copied');
      const solved = await runIn(docker, tag, task, 'sh /solution/solve.sh && sh /tests/test.sh; cat /logs/verifier/reward.txt');
      assert.equal(solved.trim().split('\n').pop(), '1', `${env.id}: oracle then verifier gives reward 1 (output: ${solved})`);
      const idle = await runIn(docker, tag, task, 'sh /tests/test.sh; cat /logs/verifier/reward.txt');
      assert.equal(idle.trim().split('\n').pop(), '0', `${env.id}: no work gives reward 0`);
    }
  });
});
