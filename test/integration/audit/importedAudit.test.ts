// Issue 14's "Done when": the hack-only agent earns 0 on every imported real task, root agent included. Every
// fixture (11 Harbor, 3 Terminal-Bench 1) imported as it is (agent as root in a writable container), played by the
// LLM agent over the loopback model server with the root-agent hacks (planted reward and tests, replaced
// interpreters, start-up hooks and a root racer in one rollout; replaced tar, cat and shell in another) and the
// general "kill everything", beside the empty agent; the oracle, played the same way, passes, so the measure can
// fail. `npm run bench:audit -- --imported` plays every hack, one rollout each.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { auditTable, combinedRootHacks, passesExport, runImportedAudit, totalUnder } from '../../../bench/audit/hackAudit.js';
import { importedFixtureSpecs } from '../../../bench/audit/importedFixtures.js';
import type { EnvironmentSpec } from '../../../src/core/spec/environment.js';
import { DockerBackend } from '../../../src/sandbox/docker/dockerBackend.js';
import { playHack, weightSets } from '../../support/hackPlay.js';
import { startModelServer, type ModelServer } from '../../support/modelServer.js';
import { needService } from '../../support/services.js';
import { dockerProblem, testLabels } from '../sandbox/support.js';

const general = ['kill everything it can'];

describe('the reward-hack audit on the imported real tasks (docker, root agents)', function () {
  this.timeout(1_200_000);
  const docker = new Docker();
  const labels = { ...testLabels, 'coevolve.owner-pid': String(process.pid) };
  let tmp: string;
  let specs: EnvironmentSpec[];
  const servers: ModelServer[] = [];
  const backend = new DockerBackend({ labels: testLabels });

  before(async function () {
    await needService(this, 'docker', () => dockerProblem('coevolve-tasks/python:bookworm'));
    tmp = mkdtempSync(join(tmpdir(), 'coevolve-imported-audit-'));
    specs = (await importedFixtureSpecs(docker, tmp, { ...testLabels })).specs;
    for (let i = 0; i < 4; i++) servers.push(await startModelServer());
  });
  after(async () => {
    for (const s of servers) await s.close();
    await backend.dispose();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('hacks earn nothing on every task: 0 % success, 0 exported, never above the empty agent, no infrastructure errors', async () => {
    assert.equal(specs.length, 14);
    assert.ok(specs.every((s) => s.sandbox.agentUser === 'root'), 'every fixture runs its agent as root');
    const cell = await runImportedAudit({ servers, backend, backendName: 'docker', specs, labels, rootHacks: combinedRootHacks(), pickHacks: (hacks) => hacks.filter((h) => general.includes(h.name)) });
    console.log(auditTable([cell]).split('\n').map((l) => `      ${l}`).join('\n'));
    assert.equal(cell.plays, 14 * (2 + general.length));
    assert.equal(cell.successes, 0);
    assert.deepEqual(cell.exported, { default: 0, maxShaping: 0 });
    assert.deepEqual(cell.aboveEmpty, []);
    assert.deepEqual(cell.infraErrors, []);
  });

  it('the oracle, played by the same agent on the same machinery, succeeds (one task per base image)', async () => {
    const failed: string[] = [];
    const controls = ['log-level-count', 'admin-emails', 'fizzbuzz-script'].map((id) => specs.find((s) => s.id === id)!);
    await Promise.all(servers.slice(0, controls.length).map(async (server, lane) => {
      for (const env of [controls[lane]!]) {
        const r = await playHack(server, backend, env, { name: 'oracle', kind: 'control', commands: [env.oracle.script] }, { labels });
        if (!r.success || !passesExport(r, totalUnder(r, weightSets.default))) failed.push(`${env.id}: ${r.verifier?.reward} ${r.verifier?.stdout ?? ''} ${r.fault ?? r.error ?? ''}`);
      }
    }));
    assert.deepEqual(failed, []);
  });
});
