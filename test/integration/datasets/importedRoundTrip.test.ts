// Export -> Harbor -> import keeps an imported task's runtime conventions (root agent, the agent's timeout,
// TEST_DIR and the reward file's rule, test.sh by its interpreter line, the built image), and the task gives the same
// rewards three ways: as imported (the product verifier), as exported and run the way Harbor runs it (tests/test.sh
// in the agent's container), and as imported back from the export.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import Docker from 'dockerode';
import { harborExportSpec } from '../../../bench/audit/hackAudit.js';
import { runSandboxBuild } from '../../../src/cli/commands/sandboxBuild.js';
import { assignTaskImages } from '../../../src/cli/run/taskImages.js';
import { validateEnvironment } from '../../../src/core/evolution/validateEnvironment.js';
import { environmentSpecSchema, type EnvironmentSpec } from '../../../src/core/spec/environment.js';
import { importHarborTasks } from '../../../src/datasets/harborImport.js';
import { renderHarborTask } from '../../../src/datasets/harborTask.js';
import { DockerBackend } from '../../../src/sandbox/docker/dockerBackend.js';
import { needService } from '../../support/services.js';
import { dockerProblem, testLabels } from '../sandbox/support.js';

// A Debian task whose test.sh is bash running pytest (the round trip of a plain sh task is in the unit layer's
// harbor round trip; one task keeps this test short).
const tasks = [
  { dir: resolve('test/fixtures/real-tasks/harbor/fizzbuzz-script'), wrong: 'printf "import sys\\nprint(1)\\n" > /app/fizzbuzz.py' },
];

const rewards = async (env: EnvironmentSpec, backend: DockerBackend, wrong: string): Promise<number[]> => {
  const labels = { ...testLabels, 'coevolve.owner-pid': String(process.pid) };
  const v = await validateEnvironment(env, backend, { labels });
  const w = await validateEnvironment(environmentSpecSchema.parse({ ...env, oracle: { ...env.oracle, script: wrong } }), backend, { labels });
  const r = (x: typeof v.oracle | typeof v.empty): number => ('verifier' in x ? x.verifier.reward : Number.NaN);
  return [r(v.oracle), r(v.empty), r(w.oracle)];
};

describe('imported task: export -> Harbor -> import (docker)', function () {
  this.timeout(600_000);
  const docker = new Docker();
  const backend = new DockerBackend({ labels: testLabels });
  let tmp: string;

  before(async function () {
    await needService(this, 'docker', () => dockerProblem('coevolve-tasks/python:bookworm'));
    tmp = mkdtempSync(join(tmpdir(), 'coevolve-roundtrip-'));
    const built = await runSandboxBuild(tasks.map((t) => t.dir), { labels: { ...testLabels } }, { cwd: process.cwd(), out: () => undefined, err: () => undefined }, docker);
    assert.equal(built.code, 0);
  });
  after(async () => {
    await backend.dispose();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  for (const t of tasks) {
    it(`${t.dir.split('/').pop()}: keeps the conventions and gives the same rewards imported, exported and re-imported`, async () => {
      const first = importHarborTasks([t.dir]);
      await assignTaskImages(first, process.cwd());
      const imported = first.imported[0]!.spec;
      const out = join(tmp, imported.id);
      for (const f of renderHarborTask(imported, { inlineUser: false })) {
        mkdirSync(dirname(join(out, f.path)), { recursive: true });
        writeFileSync(join(out, f.path), f.content);
        chmodSync(join(out, f.path), f.mode);
      }
      const back = importHarborTasks([out]);
      assert.equal(back.imported.length, 1, JSON.stringify(back.skipped));
      const again = back.imported[0]!.spec;
      for (const [field, get] of [
        ['image', (e: EnvironmentSpec) => e.sandbox.image],
        ['workdir', (e: EnvironmentSpec) => e.sandbox.workdir],
        ['agentUser', (e: EnvironmentSpec) => e.sandbox.agentUser],
        ['limits', (e: EnvironmentSpec) => e.sandbox.limits],
        ['verifier', (e: EnvironmentSpec) => e.verifier],
        ['oracle', (e: EnvironmentSpec) => e.oracle],
        ['instruction', (e: EnvironmentSpec) => e.instruction],
      ] as const) assert.deepEqual(get(again), get(imported), field);
      const asImported = await rewards(imported, backend, t.wrong);
      assert.deepEqual(asImported, [1, 0, 0], 'oracle, empty agent, wrong answer');
      assert.deepEqual(await rewards(harborExportSpec(imported), backend, t.wrong), asImported, 'the export, run as Harbor runs it');
      assert.deepEqual(await rewards(again, backend, t.wrong), asImported, 're-imported');
    });
  }
});
