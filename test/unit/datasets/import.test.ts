import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { writeSyntheticRun, type SyntheticRun } from '../../../bench/datasets/syntheticRun.js';
import { environmentSpecSchema, type EnvironmentSpec } from '../../../src/core/spec/environment.js';
import { userProfileSchema } from '../../../src/core/spec/user.js';
import { exportRun } from '../../../src/datasets/exportRun.js';
import { importHarborTasks } from '../../../src/datasets/harborImport.js';
import { formatImportReport } from '../../../src/datasets/importReport.js';
import { writeImported } from '../../../src/datasets/importWriter.js';
import { importTau2Tasks } from '../../../src/datasets/tau2Import.js';

const harborFixtures = resolve('test/fixtures/harbor');
const tau2Fixtures = resolve('test/fixtures/tau2');
const fixedNow = new Date('2026-02-01T00:00:00.000Z');

describe('harbor import', () => {
  const result = importHarborTasks([harborFixtures], { license: 'apache-2.0', now: fixedNow });
  const byName = (name: string) => result.imported.find((i) => i.source.endsWith(`/${name}`));
  const skipped = (name: string) => result.skipped.find((s) => s.source.endsWith(`/${name}`));

  it('imports the valid folders and skips each broken one with its reason, never throwing', () => {
    assert.deepEqual(result.imported.map((i) => i.id).sort(), ['count-errors', 'csv-total']);
    assert.match(skipped('broken-no-instruction')!.reason, /instruction\.md is missing/);
    assert.match(skipped('broken-bad-toml')!.reason, /task\.toml does not parse at line 4, column \d+/);
    assert.match(skipped('broken-no-tests')!.reason, /tests\/test\.sh is missing/);
    assert.match(skipped('tb1-legacy')!.reason, /Terminal-Bench 1 layout/);
    assert.equal(result.skipped.length, 4);
  });

  it('maps instruction, tests, solution, limits and metadata of a Terminal-Bench 2.x task', () => {
    const item = byName('count-errors')!;
    const spec = item.spec;
    assert.equal(spec.instruction, readFileSync(join(harborFixtures, 'count-errors/instruction.md'), 'utf8'));
    assert.equal(spec.title, 'Count the errors');
    assert.equal(spec.verifier.script, readFileSync(join(harborFixtures, 'count-errors/tests/test.sh'), 'utf8'));
    // Relative to /tests, so test.sh finds /tests/test_outputs.py as Harbor wrote it.
    assert.deepEqual(spec.verifier.files.map((f) => f.path), ['test_outputs.py']);
    assert.equal(spec.verifier.timeoutSec, 120);
    // Harbor's oracle convention: solution/ at /solution, solve.sh run by its own interpreter from the workdir.
    assert.ok(spec.oracle.script.includes(readFileSync(join(harborFixtures, 'count-errors/solution/solve.sh'), 'utf8')), spec.oracle.script);
    assert.match(spec.oracle.script, /\nexec \/bin\/bash "\$S\/solve\.sh"\n$/);
    assert.deepEqual({ cpus: spec.sandbox.limits.cpus, memoryMb: spec.sandbox.limits.memoryMb }, { cpus: 2, memoryMb: 2048 });
    assert.equal(spec.sandbox.limits.diskMb, 10240);
    assert.equal(spec.sandbox.workdir, '/app');
    assert.equal(spec.sandbox.image, 'harbor/count-errors:latest');
    assert.equal(spec.family, 'log-analysis');
    assert.equal(spec.difficulty, 50);
    assert.deepEqual(spec.skills, ['grep', 'logs']);
    assert.equal(spec.provenance.author, 'Coevolve Fixtures <fixtures@coevolve.local>');
    assert.equal(spec.provenance.license, 'apache-2.0');
    assert.match(spec.provenance.source!, /^harbor:.*count-errors$/);
    assert.match(spec.provenance.canary!, /3f1c2a9e-8b7d-4e6f-a1b2-c3d4e5f60718/);
    assert.ok(item.header.some((h) => h.startsWith('Build context:')), 'the Dockerfile is kept as the build context reference');
    // No note on /tests any more: the verifier files land there, as Harbor has them.
    assert.ok(!item.unmapped.some((u) => /refers to \/tests/.test(u)));
    // Harbor's runtime: the agent as root, the reward file decides (none is 0), TEST_DIR, the agent's own timeout.
    assert.equal(spec.sandbox.agentUser, 'root');
    assert.deepEqual([spec.verifier.partialCredit, spec.verifier.requireRewardFile, spec.verifier.env], [true, true, { TEST_DIR: '/tests' }]);
    assert.equal(spec.sandbox.limits.agentTimeoutSec, 600);
    for (const want of [/environment\/Dockerfile: kept as the build context/, /metadata\.expert_time_estimate_min/, /user side/]) {
      assert.ok(item.unmapped.some((u) => want.test(u)), `reports ${want}`);
    }
  });

  it('gives a task without solution a failing placeholder oracle and says so', () => {
    const item = byName('csv-total')!;
    assert.match(item.spec.oracle.script, /exit 1/);
    assert.ok(item.unmapped.some((u) => /solution\/solve\.sh: missing/.test(u)));
    assert.equal(item.spec.sandbox.limits.memoryMb, 512);
    assert.equal(item.spec.verifier.timeoutSec, 30);
  });

  it('writes *.env.yaml with comments on top that parse back to the same spec', () => {
    const out = mkdtempSync(join(tmpdir(), 'coevolve-import-'));
    try {
      const r = importHarborTasks([join(harborFixtures, 'count-errors')], { now: fixedNow });
      writeImported(r, out, '.env.yaml', false);
      const text = readFileSync(join(out, 'count-errors.env.yaml'), 'utf8');
      assert.match(text, /^# Imported from the Harbor task .*count-errors\n# by Coevolve .* on 2026-02-01\./);
      assert.deepEqual(environmentSpecSchema.parse(parseYaml(text)), r.imported[0]!.spec);
      // a second import does not overwrite without --force
      const again = importHarborTasks([join(harborFixtures, 'count-errors')]);
      writeImported(again, out, '.env.yaml', false);
      assert.equal(again.imported.length, 0);
      assert.match(again.skipped[0]!.reason, /exists; pass --force/);
      assert.match(formatImportReport('environments', again), /0 environments imported, 1 skipped/);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it('reports paths that are missing, files, or folders without tasks', () => {
    const r = importHarborTasks(['/nonexistent/coevolve', join(harborFixtures, 'README.md'), join(tau2Fixtures)]);
    assert.equal(r.imported.length, 0);
    assert.deepEqual(r.skipped.map((s) => s.reason.split(' ')[0]), ['does', 'is', 'no']);
  });
});

describe('harbor round trip: export -> import gives the same environments', function () {
  this.timeout(60_000);
  let tmp: string;
  let run: SyntheticRun;
  before(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'coevolve-roundtrip-'));
    run = await writeSyntheticRun(join(tmp, 'runs'), { lineages: 3, childrenPerLineage: 1, rolloutsPerEnv: 1, writer: 'store' });
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  const normalise = (e: EnvironmentSpec): EnvironmentSpec => environmentSpecSchema.parse(JSON.parse(JSON.stringify(e)));

  for (const inlineUser of [false, true]) {
    it(`restores every field${inlineUser ? ' (user context inlined into instruction.md)' : ''}`, async () => {
      const out = join(tmp, `export-${inlineUser}`);
      await exportRun(run.dir, { format: 'harbor', outDir: out, filter: 'all', inlineUser, now: fixedNow });
      const r = importHarborTasks([out]);
      assert.deepEqual(r.skipped, []);
      assert.equal(r.imported.length, run.environments.length);
      for (const env of run.environments) {
        const back = r.imported.find((i) => i.id === env.id)!.spec;
        // the parts the issue names first, then everything
        assert.equal(back.instruction, env.instruction);
        assert.deepEqual(back.verifier, env.verifier);
        assert.deepEqual(back.oracle, env.oracle);
        assert.deepEqual(back.sandbox.limits, env.sandbox.limits);
        assert.deepEqual(normalise(back), normalise(env));
      }
    });
  }
});

describe('tau2 import', () => {
  const result = importTau2Tasks([join(tau2Fixtures, 'airline/tasks.json'), join(tau2Fixtures, 'broken.json'), join(tau2Fixtures, 'not-tasks.json')], { now: fixedNow });

  it('imports the usable tasks and skips malformed tasks and files with a reason', () => {
    assert.deepEqual(result.imported.map((i) => i.id), ['tau2-airline-0', 'tau2-airline-1', 'tau2-airline-2']);
    const reasons = result.skipped.map((s) => `${s.source.split('/').pop()}: ${s.reason}`);
    assert.equal(reasons.length, 6, reasons.join('\n'));
    assert.ok(reasons.some((r) => /tasks\.json#3: user_scenario is missing/.test(r)));
    assert.ok(reasons.some((r) => /tasks\.json#4: user_scenario\.instructions is missing/.test(r)));
    assert.ok(reasons.some((r) => /tasks\.json#5: .*neither reason_for_call nor task_instructions/.test(r)));
    assert.ok(reasons.some((r) => /tasks\.json#\[6\]: tasks\[6\] is not an object/.test(r)));
    assert.ok(reasons.some((r) => /broken\.json: is not valid JSON/.test(r)));
    assert.ok(reasons.some((r) => /not-tasks\.json: holds neither a list/.test(r)));
  });

  it('maps persona, known / unknown info to facts and reason + instructions to the goal', () => {
    const u = result.imported[0]!.spec;
    assert.equal(u.persona.name, 'Mara Quinn');
    assert.match(u.persona.background, /busy consultant/);
    assert.equal(u.persona.expertise, 'novice');
    assert.deepEqual(u.facts.map((f) => f.id), ['known-1', 'known-2', 'known-3', 'unknown-1']);
    assert.equal(u.facts[0]!.text, 'I am Mara Quinn.');
    assert.equal(u.facts[1]!.text, 'My user id is mara_quinn_4410.');
    assert.equal(u.facts[3]!.text, 'I do not remember my reservation id.');
    assert.ok(u.facts[1]!.keywords.includes('mara_quinn_4410'));
    assert.match(u.goal!.statement, /^You want to move your flight.*\n\nIf the agent says/s);
    assert.deepEqual(u.goal!.requires, ['known-1', 'known-2', 'known-3']);
    assert.match(u.provenance.source!, /^tau2:.*tasks\.json#0$/);
    const item = result.imported[0]!;
    assert.ok(item.header.some((h) => /^purpose: The user wants to change a flight/.test(h)));
    assert.ok(item.unmapped.some((u2) => /evaluation_criteria \(actions, nl_assertions\)/.test(u2)));
  });

  it('keeps free-text instructions as the goal and reports that no facts could be made', () => {
    const item = result.imported[2]!;
    assert.equal(item.spec.facts.length, 0);
    assert.match(item.spec.goal!.statement, /pets are allowed/);
    assert.ok(item.unmapped.some((u) => /free text/.test(u)));
  });

  it('writes *.user.yaml files that parse back to the same profile', () => {
    const out = mkdtempSync(join(tmpdir(), 'coevolve-tau2-'));
    try {
      const r = importTau2Tasks([join(tau2Fixtures, 'airline/tasks.json')], { now: fixedNow });
      writeImported(r, out, '.user.yaml', false);
      assert.deepEqual(readdirSync(out).sort(), ['tau2-airline-0.user.yaml', 'tau2-airline-1.user.yaml', 'tau2-airline-2.user.yaml']);
      const text = readFileSync(join(out, 'tau2-airline-0.user.yaml'), 'utf8');
      assert.match(text, /^# Imported from tau2-bench task 0 in .*tasks\.json\n# by Coevolve .* on 2026-02-01\./);
      assert.deepEqual(userProfileSchema.parse(parseYaml(text)), r.imported[0]!.spec);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
