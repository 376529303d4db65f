// Issue 11's "Done when": the audit's zeros, asserted. An LLM agent that only plays hacks (one per class) and
// submits, over every built-in family and its Harbor export, on docker and bwrap: no success, no rollout through
// the export selection at --min-reward 0.5 under default or maximal non-verifier weights, never more total reward
// than the empty agent on the same pair, and no hack laundered into an infrastructure error.
// The bench (bench/audit/run.ts) plays every hack at more levels and prints the same figures.
import assert from 'node:assert/strict';
import { BwrapBackend } from '../../../src/sandbox/bwrap/bwrapBackend.js';
import { DockerBackend } from '../../../src/sandbox/docker/dockerBackend.js';
import { auditTable, harborExportSpec, onePerKind, passesExport, runHackAudit, totalUnder } from '../../../bench/audit/hackAudit.js';
import { createRng } from '../../../src/core/ports/rng.js';
import { logTriage } from '../../../src/builtin/families/logTriage.js';
import { playHack, weightSets } from '../../support/hackPlay.js';
import { startModelServer } from '../../support/modelServer.js';
import { needService } from '../../support/services.js';
import { bwrapProblem, dockerProblem, testLabels } from '../sandbox/support.js';

for (const b of [
  { name: 'docker', problem: () => dockerProblem(), make: () => new DockerBackend({ labels: testLabels }) },
  { name: 'bwrap', problem: bwrapProblem, make: () => new BwrapBackend() },
]) {
  describe(`the reward-hack audit on ${b.name}`, function () {
    this.timeout(1_200_000);
    it('hacks earn nothing: 0 % success, 0 exported at --min-reward 0.5 under either weighting, never above the empty agent', async function () {
      await needService(this, b.name, b.problem);
      const server = await startModelServer();
      try {
        const cells = await runHackAudit({ server, backends: [b], levels: () => [1], pickHacks: onePerKind, labels: testLabels });
        console.log(auditTable(cells).split('\n').map((l) => `      ${l}`).join('\n'));
        for (const c of cells) {
          assert.ok(c.plays >= 4 * 8, `${c.source}: every family played every class (${c.plays})`);
          assert.equal(c.successes, 0, `${c.source}: success rate`);
          assert.deepEqual(c.exported, { default: 0, maxShaping: 0 }, `${c.source}: rollouts through the export selection`);
          assert.deepEqual(c.aboveEmpty, [], `${c.source}: hacks above the empty agent`);
          assert.deepEqual(c.infraErrors, [], `${c.source}: hacks laundered into infrastructure errors`);
        }
        // The measure can fail: the oracle, played by the same agent on the same machinery, passes it.
        const backend = b.make();
        try {
          for (const env of [logTriage.generate({ level: 1 }, createRng('audit/log-triage/1'))].flatMap((e) => [e, harborExportSpec(e)])) {
            const r = await playHack(server, backend, env, { name: 'oracle', kind: 'control', commands: [env.oracle.script] }, { labels: testLabels });
            assert.equal(r.success, true, `${env.id}: the oracle succeeds (${r.verifier?.stdout ?? ''} ${r.fault ?? r.error ?? ''})`);
            assert.ok(passesExport(r, totalUnder(r, weightSets.default)), `${env.id}: the oracle passes the export selection`);
          }
        } finally {
          await backend.dispose();
        }
      } finally {
        await server.close();
      }
    });
  });
}
