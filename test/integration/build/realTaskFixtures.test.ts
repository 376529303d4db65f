// Every real-task fixture (the Harbor tasks, and the Terminal-Bench 1 tasks converted to Harbor's layout) builds
// with `coevolve sandbox build`, and in its image, run as Harbor runs a task (tests at /tests only for the
// verifier, the oracle from /solution/solve.sh, the reward read from /logs/verifier/reward.txt), the oracle earns 1
// and doing nothing earns 0. Images are content-addressed, so they are built once and reused by later runs.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Docker from 'dockerode';
import pLimit from 'p-limit';
import { runSandboxBuild } from '../../../src/cli/commands/sandboxBuild.js';
import { importTb1Tasks } from '../../../src/datasets/tb1Import.js';
import { needService } from '../../support/services.js';
import { dockerProblem, testLabels } from '../sandbox/support.js';

const harbor = resolve('test/fixtures/real-tasks/harbor');
const pythonImage = 'coevolve-tasks/python:bookworm';

/** Runs `script` as root in a fresh no-network container of the image with the task's tests (and solution) mounted; returns the reward file. */
async function harborRun(docker: Docker, image: string, task: string, withSolution: boolean): Promise<string> {
  const script = `${withSolution ? '/solution/solve.sh > /dev/null 2>&1; ' : ''}/tests/test.sh > /dev/null 2>&1; cat /logs/verifier/reward.txt 2>/dev/null || echo missing`;
  const binds = [`${join(task, 'tests')}:/tests:ro`, ...(withSolution ? [`${join(task, 'solution')}:/solution:ro`] : [])];
  const c = await docker.createContainer({ Image: image, Cmd: ['sh', '-c', script], Labels: { ...testLabels, 'coevolve.owner-pid': String(process.pid) }, NetworkDisabled: true, HostConfig: { Binds: binds, NetworkMode: 'none' } });
  try {
    await c.start();
    await c.wait();
    const buf = (await c.logs({ stdout: true, stderr: false })) as unknown as Buffer;
    let out = '';
    for (let i = 0; i + 8 <= buf.length;) {
      const len = buf.readUInt32BE(i + 4);
      out += buf.subarray(i + 8, i + 8 + len).toString('utf8');
      i += 8 + len;
    }
    return out.trim();
  } finally {
    await c.remove({ force: true });
  }
}

describe('real-task fixtures build and run as Harbor runs them (Docker)', function () {
  this.timeout(600_000);
  const docker = new Docker();
  let tmp: string;
  const tasks: string[] = [];
  const tags = new Map<string, string>();

  before(async function () {
    await needService(this, 'docker', () => dockerProblem(pythonImage));
    tmp = mkdtempSync(join(tmpdir(), 'coevolve-fixtures-'));
    const tb1 = importTb1Tasks([resolve('test/fixtures/real-tasks/tb1')], { harborOut: join(tmp, 'tb1') });
    assert.equal(tb1.imported.length, 3, JSON.stringify(tb1.skipped));
    tasks.push(...readdirSync(harbor).map((n) => join(harbor, n)), ...readdirSync(join(tmp, 'tb1')).map((n) => join(tmp, 'tb1', n)));
    const o = { text: '', cwd: process.cwd(), out: (t: string) => { o.text += t; }, err: (t: string) => { o.text += t; } };
    const built = await runSandboxBuild(tasks, { labels: { ...testLabels } }, o, docker);
    assert.equal(built.code, 0, o.text);
    for (const [i, r] of built.results.entries()) tags.set(tasks[i]!, r.tag);
  });
  after(() => {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('has at least 10 Harbor and 3 Terminal-Bench 1 tasks', () => {
    assert.ok(readdirSync(harbor).length >= 10);
    assert.equal(tasks.length - readdirSync(harbor).length, 3);
  });

  it('gives the oracle 1 and the empty agent 0 on every task', async () => {
    const limit = pLimit(4);
    const rewards = await Promise.all(tasks.map((task) => limit(async () => {
      const tag = tags.get(task)!;
      return `${task.split('/').pop()}: oracle ${await harborRun(docker, tag, task, true)}, empty ${await harborRun(docker, tag, task, false)}`;
    })));
    assert.deepEqual(rewards.filter((r) => !/oracle 1, empty 0$/.test(r)), [], rewards.join('\n'));
  });
});
