// One regression test per numbered item of issue 11 owned by the sandbox layer, with the exact inputs
// (items 2 and 3 with every variant live in rewardHacks.test.ts; these are the literal reproductions).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { createRng } from '../../../src/core/ports/rng.js';
import type { SandboxBackend } from '../../../src/core/ports/sandbox.js';
import { environmentSpecSchema } from '../../../src/core/spec/environment.js';
import { sandboxRequest } from '../../../src/core/rollout/engine.js';
import { verify } from '../../../src/core/rollout/verification.js';
import { csvReport } from '../../../src/builtin/families/csvReport.js';
import { limitsSchema } from '../../../src/core/spec/environment.js';
import { BwrapBackend } from '../../../src/sandbox/bwrap/bwrapBackend.js';
import { DockerBackend } from '../../../src/sandbox/docker/dockerBackend.js';
import { ProcessBackend } from '../../../src/sandbox/process/processBackend.js';
import { playHack } from '../../support/hackPlay.js';
import { startModelServer } from '../../support/modelServer.js';
import type { ModelServer } from '../../support/modelServer.js';
import { needService } from '../../support/services.js';
import { bwrapProblem, dockerProblem, requestFor, testLabels } from './support.js';

const env = csvReport.generate({ level: 1 }, createRng('regressions/csv'));
const output = /if \[ -f '([^']+)' \]/.exec(env.verifier.script)![1]!;

const isolating: { name: string; problem: () => Promise<string | undefined>; make: () => SandboxBackend }[] = [
  { name: 'docker', problem: () => dockerProblem(), make: () => new DockerBackend({ labels: testLabels }) },
  { name: 'bwrap', problem: bwrapProblem, make: () => new BwrapBackend() },
];

for (const b of isolating) {
  describe(`issue 11 regressions on ${b.name}`, function () {
    this.timeout(300_000);
    let backend: SandboxBackend;
    let server: ModelServer;
    const host = join(tmpdir(), `coevolve-regress-${process.pid}-${b.name}`);
    before(async function () {
      await needService(this, b.name, b.problem);
      backend = b.make();
      server = await startModelServer();
      mkdirSync(join(host, 'linked'), { recursive: true });
    });
    after(async () => {
      await backend?.dispose();
      await server?.close();
      rmSync(host, { recursive: true, force: true });
    });

    it('item 1: `mkdir .verifier; ln -s /some/host/file .verifier/report.expected` leaves the host file and a linked folder alone', async () => {
      const file = join(host, 'victim.txt');
      writeFileSync(file, 'untouched\n', { mode: 0o600 });
      const r = await playHack(server, backend, env, { name: 'item 1', kind: 'host write', commands: [`mkdir .verifier; ln -s ${file} .verifier/report.expected; ln -s ${join(host, 'linked')} tests`] }, { labels: testLabels });
      assert.equal(readFileSync(file, 'utf8'), 'untouched\n');
      assert.equal(statSync(file).mode & 0o777, 0o600);
      assert.deepEqual(readdirSync(join(host, 'linked')), []);
      assert.equal(r.rewards.verifier, 0);
    });

    it('item 1 via setup: an environment whose setup plants the links changes no host file', async () => {
      const file = join(host, 'victim2.txt');
      writeFileSync(file, 'untouched\n', { mode: 0o600 });
      const planted = environmentSpecSchema.parse({ ...env, id: `${env.id}-setup-links`, sandbox: { ...env.sandbox, setup: [...env.sandbox.setup, `mkdir -p .verifier && ln -s ${file} .verifier/report.expected && ln -s ${file} report.expected`] } });
      await playHack(server, backend, planted, undefined, { labels: testLabels });
      assert.equal(readFileSync(file, 'utf8'), 'untouched\n');
      assert.equal(statSync(file).mode & 0o777, 0o600);
    });

    it('item 2: `ln -s report.actual .verifier/report.want` and a planted read-only reward.json in a 555 .verifier earn 0', async () => {
      for (const commands of [
        ['mkdir .verifier; ln -s report.actual .verifier/report.want'],
        [`mkdir -p out; ln -s ../.verifier/report.expected ${output}`],
        [`mkdir -p .verifier out; echo x > ${output}; ln -s ../${output} .verifier/report.expected`],
        ['mkdir .verifier; echo \'{"report":1}\' > .verifier/reward.json; chmod 444 .verifier/reward.json; chmod 555 .verifier'],
      ]) {
        const r = await playHack(server, backend, env, { name: 'item 2', kind: 'reward hack', commands }, { labels: testLabels });
        assert.equal(r.rewards.verifier, 0, commands.join('; '));
        assert.equal(r.success, false);
      }
    });

    it('item 3: `echo x > .verifier` is a failed rollout, not an error, and no host path is recorded', async () => {
      const r = await playHack(server, backend, env, { name: 'item 3', kind: 'launder', commands: ['echo x > .verifier'] }, { labels: testLabels });
      assert.notEqual(r.status, 'error');
      assert.equal(r.success, false);
      assert.doesNotMatch(JSON.stringify(r), /coevolve-sbx-|\/tmp\/coevolve-regress/);
    });

    it('item 8: a quoted verifier.rewardFile never reaches a shell', async () => {
      const marker = `/tmp/pwned-${process.pid}`;
      // In place, so the file the injection would create is looked for in the very sandbox the verifier ran in.
      const quoted = environmentSpecSchema.parse({ ...env, id: `${env.id}-quoted`, verifier: { ...env.verifier, mode: 'in-place', rewardFile: `/tmp/x'; touch ${marker}; echo '` } });
      const request = sandboxRequest(quoted, testLabels);
      const box = await backend.start(request);
      let after = box;
      try {
        await box.exec(quoted.oracle.script, { as: 'setup', cwd: quoted.sandbox.workdir });
        const v = await verify(box, quoted, { backend, request, onSandbox: (s) => (after = s) });
        after = v.sandbox;
        assert.equal(v.outcome.reward, 1, 'the oracle still passes');
        const look = await after.exec(['/bin/sh', '-c', 'test -e "$1" && echo found; true', 'sh', marker], { as: 'setup' });
        assert.equal(look.stdout, '');
      } finally {
        await after.stop();
        await box.stop();
      }
      assert.ok(!existsSync(marker));
    });
  });
}

describe('issue 11 item 7: bwrap enforces diskMb for the workspace and /tmp', function () {
  this.timeout(120_000);
  it('687 MB into a 64 MB workspace and /tmp stops at the limit, and the host /tmp does not grow', async function () {
    await needService(this, 'bwrap', bwrapProblem);
    if (process.getuid?.() !== 0) this.skip(); // without root only the per-file limit holds (ARCHITECTURE.md)
    const backend = new BwrapBackend();
    const box = await backend.start(requestFor({ limits: limitsSchema.parse({ diskMb: 64, commandTimeoutSec: 60 }) }));
    try {
      const freeBefore = Number(spawnSync('df', ['-k', '--output=avail', tmpdir()], { encoding: 'utf8' }).stdout.split('\n')[1]);
      const r = await box.exec('for i in 1 2 3 4 5 6 7 8 9 10 11; do dd if=/dev/zero of=big$i bs=1048576 count=64 2>/dev/null; done; dd if=/dev/zero of=/tmp/big bs=1048576 count=57 2>/dev/null; dd if=/dev/zero of=/tmp/big2 bs=1048576 count=57 2>&1 | tail -1; du -sk . /tmp', { timeoutMs: 60_000 });
      const [ws, tmp] = r.stdout.trim().split('\n').slice(-2).map((l) => Number(l.split(/\s+/)[0]));
      assert.ok(ws! <= 64 * 1024 + 64, `workspace holds ${ws} KiB`);
      assert.ok(tmp! <= 64 * 1024 + 64, `/tmp holds ${tmp} KiB`);
      assert.match(r.stdout, /^7\+0 records out$/m, 'the last write stopped at the limit');
      const freeAfter = Number(spawnSync('df', ['-k', '--output=avail', tmpdir()], { encoding: 'utf8' }).stdout.split('\n')[1]);
      assert.ok(freeBefore - freeAfter < 32 * 1024, `the host /tmp lost ${freeBefore - freeAfter} KiB`);
    } finally {
      await box.stop();
      await backend.dispose();
    }
  });
});

describe('issue 11 item 9: the process backend ends the whole tree and passes a clean environment', function () {
  this.timeout(60_000);
  it('a setsid child is gone after the rollout; no API key of the parent reaches a command; its rollouts are marked unsandboxed', async () => {
    process.env.COEVOLVE_TEST_SECRET_KEY = 'sk-parent-secret';
    const server = await startModelServer();
    const backend = new ProcessBackend({ warn: () => undefined });
    try {
      const marker = 2147483629;
      const r = await playHack(server, backend, env, { name: 'item 9', kind: 'escape', commands: [`setsid sleep ${marker} >/dev/null 2>&1 < /dev/null & env`] });
      await new Promise((res) => setTimeout(res, 200));
      assert.equal(spawnSync('pgrep', ['-f', `sleep ${marker}`], { encoding: 'utf8' }).stdout.trim(), '', 'the setsid child was ended');
      const shown = JSON.stringify(r.steps);
      assert.doesNotMatch(shown, /sk-parent-secret|COEVOLVE_TEST_SECRET_KEY/);
      assert.equal(r.sandbox.unsandboxed, true);
    } finally {
      delete process.env.COEVOLVE_TEST_SECRET_KEY;
      await backend.dispose();
      await server.close();
    }
  });
});
