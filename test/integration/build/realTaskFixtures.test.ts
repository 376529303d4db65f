// Every real-task fixture (the Harbor tasks, and the Terminal-Bench 1 tasks converted to Harbor's layout) builds
// with `coevolve sandbox build`, and through the product's own verifier (`coevolve check`: imported as they are,
// the agent as root, the image's workdir files in the workspace, tests at /tests only after the agent ended,
// test.sh by its interpreter line, the reward from /logs/verifier), the oracle earns 1 and doing nothing earns 0.
// Images are content-addressed, so they are built once and reused by later runs.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Docker from 'dockerode';
import pLimit from 'p-limit';
import { runCheck } from '../../../src/cli/commands/check.js';
import { runSandboxBuild } from '../../../src/cli/commands/sandboxBuild.js';
import { importTb1Tasks } from '../../../src/datasets/tb1Import.js';
import { needService } from '../../support/services.js';
import { dockerProblem, testLabels } from '../sandbox/support.js';

const harbor = resolve('test/fixtures/real-tasks/harbor');
const pythonImage = 'coevolve-tasks/python:bookworm';

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

  it('gives the oracle 1 and the empty agent 0 on every task, through coevolve check', async () => {
    const limit = pLimit(4);
    const labels = { ...testLabels, 'coevolve.owner-pid': String(process.pid) };
    const lines = await Promise.all(tasks.map((task) => limit(async () => {
      const o = { text: '', cwd: process.cwd(), out: (t: string) => { o.text += t; } };
      const r = await runCheck([task], { backend: 'docker', labels }, o, docker);
      const res = r.results[0]!;
      return `${task.split('/').pop()}: ${res.status} oracle ${res.oracleReward}, empty ${res.emptyReward}${res.status === 'passed' ? '' : ` (${res.details})`}`;
    })));
    assert.deepEqual(lines.filter((l) => !/: passed oracle 1, empty 0$/.test(l)), [], lines.join('\n'));
  });
});
