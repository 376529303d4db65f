import assert from 'node:assert/strict';
import { createRng } from '../../../src/core/ports/rng.js';
import type { SandboxBackend } from '../../../src/core/ports/sandbox.js';
import { validateEnvironment } from '../../../src/core/evolution/validateEnvironment.js';
import { sandboxRequest } from '../../../src/core/rollout/engine.js';
import { carelessness } from '../../../src/builtin/agent/heuristicAgent.js';
import { builtinFamilies } from '../../../src/builtin/families/registry.js';
import { cooperativeNovice } from '../../../src/builtin/user/seedUsers.js';
import { createSandboxBackend } from '../../../src/sandbox/factory.js';
import { needService } from '../../support/services.js';
import { bwrapProblem, dockerProblem, testLabels } from '../sandbox/support.js';
import { playBuiltin, strongGenes, weakGenes } from './episodes.js';

const specsAt = (levels: (max: number) => number[]) => builtinFamilies.flatMap((f) => levels(f.maxLevel).map((level) => f.generate({ level }, createRng(`it/${f.name}/${level}`))));
const everyLevel = (max: number): number[] => Array.from({ length: max }, (_, i) => i + 1);
// Containers cost seconds on a shared machine: docker takes the levels that span every strictness, feedback and horizon end.
const spreadLevels = (max: number): number[] => [1, Math.ceil(max / 2), max];

function validationSuite(backendName: 'process' | 'docker' | 'bwrap', makeBackend: () => SandboxBackend, levels: (max: number) => number[]): void {
  it(`${backendName}: check.sh accepts the oracle's result and rejects a defective one`, async function () {
    const backend = makeBackend();
    try {
      for (const family of builtinFamilies) {
        const spec = family.generate({ level: 3 }, createRng(`check/${family.name}`));
        // The file check.sh is about is the one the verifier requires (output, config or manifest).
        const target = /if \[ -f '([^']+)' \]/.exec(spec.verifier.script)?.[1];
        assert.ok(target && spec.sandbox.files.some((f) => f.path === 'check.sh'), `${spec.id} ships check.sh`);
        const sb = await backend.start(sandboxRequest(spec, testLabels));
        try {
          await sb.exec(spec.oracle.script, { privileged: true, cwd: spec.sandbox.workdir });
          const good = await sb.exec(`sh check.sh '${target}'`, { cwd: spec.sandbox.workdir });
          assert.equal(good.exitCode, 0, `${spec.id}: ${good.stdout}${good.stderr}`);
          assert.equal(good.stderr, '', 'only busybox tools are used');
          // Trailing whitespace is the verifier's business (strictness 2), not the format check's.
          await sb.exec(`sed -i 's/$/ /' '${target}'`, { privileged: true, cwd: spec.sandbox.workdir });
          const spaced = await sb.exec(`sh check.sh '${target}'`, { cwd: spec.sandbox.workdir });
          assert.equal(spaced.exitCode, 0, `${spec.id}: ${spaced.stdout}`);
          await sb.exec(`echo 'not valid here' >> '${target}'`, { privileged: true, cwd: spec.sandbox.workdir });
          const bad = await sb.exec(`sh check.sh '${target}'`, { cwd: spec.sandbox.workdir });
          assert.equal(bad.exitCode, 1, `${spec.id}: a line out of the format must fail the check`);
        } finally {
          await sb.stop();
        }
      }
    } finally {
      await backend.dispose();
    }
  });

  it(`${backendName}: the oracle passes and an empty agent fails, for every family at levels ${levels(5).join(', ')}`, async function () {
    const backend = makeBackend();
    try {
      const failures: string[] = [];
      for (const spec of specsAt(levels)) {
        const v = await validateEnvironment(spec, backend, { labels: testLabels });
        if (!v.oraclePassed || !v.emptyFailed) failures.push(v.details);
      }
      assert.deepEqual(failures, []);
    } finally {
      await backend.dispose();
    }
  });
}

describe('built-in families in a real sandbox', function () {
  describe('process backend', function () {
    validationSuite('process', () => createSandboxBackend('process', { warn: () => undefined }), everyLevel);

    it('strong genes with a cooperative user succeed often, weak genes fail often (levels 1, 3, 5)', async function () {
      const backend = createSandboxBackend('process', { warn: () => undefined });
      try {
        const tally = { strong: 0, weak: 0, plays: 0 };
        for (const family of builtinFamilies) {
          for (const level of [1, 3, 5]) {
            const env = family.generate({ level }, createRng(`episodes/${family.name}/${level}`));
            for (let trial = 0; trial < 2; trial++) {
              const strong = await playBuiltin(backend, env, cooperativeNovice(), strongGenes(family), trial);
              const weak = await playBuiltin(backend, env, cooperativeNovice(), weakGenes, trial);
              assert.equal(strong.status, 'terminated', `${env.id}: ${strong.error ?? strong.truncationReason}`);
              assert.ok(strong.steps.some((s) => s.tool_calls?.some((c) => c.function_name === 'submit')), 'the episode is complete (submitted)');
              tally.plays++;
              if (strong.success) tally.strong++;
              if (weak.success) tally.weak++;
            }
          }
        }
        console.log(`      strong ${tally.strong}/${tally.plays}, weak ${tally.weak}/${tally.plays}`);
        // Even strong genes take a decoy they looked at for the input one look in ten (carelessness.spot), and levels 3
        // and 5 have 2-6 decoys: they solve about two plays in three; weak genes none.
        assert.ok(tally.strong >= tally.plays * 0.6, `strong genes succeed often (${tally.strong}/${tally.plays})`);
        assert.ok(tally.weak <= tally.plays * 0.25, `weak genes fail often (${tally.weak}/${tally.plays} succeeded)`);
      } finally {
        await backend.dispose();
      }
    });
  });

  describe('docker backend (busybox image)', function () {
    before(async function () {
      await needService(this, 'docker', () => dockerProblem());
    });
    validationSuite('docker', () => createSandboxBackend('docker', { docker: { labels: testLabels } }), spreadLevels);

    it('docker: a strong agent that never slips plays one complete, successful episode per family with busybox tools only', async function () {
      const backend = createSandboxBackend('docker', { docker: { labels: testLabels } });
      // Slips and misread decoys are the agent's own, deliberate defects, and a user below full cooperativeness
      // sometimes answers vaguely; with none left, only a tool busybox lacks can fail the play.
      const novice = cooperativeNovice();
      const user = { ...novice, behavior: { ...novice.behavior, cooperativeness: 1 } };
      const { baseSlip, spot } = carelessness;
      carelessness.baseSlip = 0;
      carelessness.spot = 1;
      try {
        for (const family of builtinFamilies) {
          const env = family.generate({ level: 3 }, createRng(`docker/${family.name}`));
          const r = await playBuiltin(backend, env, user, strongGenes(family), 0, testLabels);
          assert.equal(r.status, 'terminated', `${env.id}: ${r.error ?? ''}`);
          assert.ok(r.success, `${env.id} failed: ${r.verifier?.stdout ?? ''}`);
          const stderr = r.steps.flatMap((s) => s.observation?.results ?? []).map((o) => o.command?.stderr ?? '').join('');
          assert.doesNotMatch(stderr, /not found|invalid option|unrecognized|applet/, `${env.id}: a command needs a tool busybox lacks`);
        }
      } finally {
        Object.assign(carelessness, { baseSlip, spot });
        await backend.dispose();
      }
    });
  });

  describe('bwrap backend (busybox rootfs)', function () {
    before(async function () {
      await needService(this, 'bwrap', bwrapProblem);
    });
    validationSuite('bwrap', () => createSandboxBackend('bwrap'), everyLevel);
  });
});
