// Where a bwrap sandbox's folders live. With the command channel (the default) the workspace, /tmp, /tests and
// /logs/verifier are tmpfs mounts inside the sandbox's own mount namespace: the host makes no folder and no mount
// for them, so there is nothing on the host a sandbox could plant a link in, and they vanish with the namespace.
// The per-command path (channel: false) keeps its host folders. Real bubblewrap, real supervisor.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRng } from '../../../src/core/ports/rng.js';
import { limitsSchema } from '../../../src/core/spec/environment.js';
import { runVerifier, sandboxRequest } from '../../../src/core/rollout/engine.js';
import { csvReport } from '../../../src/builtin/families/csvReport.js';
import { BwrapBackend } from '../../../src/sandbox/bwrap/bwrapBackend.js';
import type { BwrapSandbox } from '../../../src/sandbox/bwrap/bwrapBackend.js';
import { mountsUnder } from '../../../src/sandbox/bwrap/tmpfsMounts.js';
import { needService } from '../../support/services.js';
import { bwrapProblem, requestFor } from './support.js';

const ours = (): string[] => readdirSync(tmpdir()).filter((e) => e.startsWith(`coevolve-sbx-${process.pid}-`));
const ourMounts = (): string[] => mountsUnder(tmpdir()).filter((m) => m.includes(`coevolve-sbx-${process.pid}-`));

describe('bwrap sandbox folders', function () {
  this.timeout(120_000);
  before(async function () {
    await needService(this, 'bwrap', bwrapProblem);
  });

  describe('with the command channel', () => {
    const backend = new BwrapBackend({ warn: (m) => assert.fail(`unexpected warning: ${m}`) });
    after(() => backend.dispose());

    it('makes no host folder and no host mount; each folder is a tmpfs of diskMb in the namespace, full at the limit', async () => {
      const box = (await backend.start(requestFor({ limits: limitsSchema.parse({ diskMb: 8 }), files: [{ path: 'in.txt', content: 'x\n' }] }))) as BwrapSandbox;
      try {
        assert.equal(box.hasChannel, true);
        assert.deepEqual(ours(), [], 'no host folder for the sandbox');
        assert.deepEqual(ourMounts(), [], 'no host mount for the sandbox');
        const mounts = await box.exec(['/bin/sh', '-c', 'grep -E " (/workspace|/tmp|/tests|/logs/verifier) " /proc/self/mountinfo'], { as: 'verifier' });
        for (const target of ['/workspace', '/tmp', '/tests', '/logs/verifier']) {
          const line = mounts.stdout.split('\n').find((l) => l.split(' ')[4] === target) ?? '';
          assert.match(line, /nosuid,nodev.* - tmpfs .*size=8192k/, `${target}: ${line}`);
        }
        const modes = await box.exec('stat -c "%a %n" /workspace /tmp');
        assert.equal(modes.stdout, '755 /workspace\n1777 /tmp\n');
        const full = await box.exec('dd if=/dev/zero of=big bs=1048576 count=20 2>&1 | tail -1; du -sk big');
        assert.ok(Number(full.stdout.trim().split('\n').pop()!.split(/\s+/)[0]) <= 8 * 1024, full.stdout);
        assert.equal((await box.getFile('in.txt'))?.toString(), 'x\n');
      } finally {
        await box.stop();
      }
      assert.deepEqual(ours(), []);
    });

    it('what one sandbox\'s agent wrote (workspace, /tmp, /dev/shm) is not in the next sandbox, nor in the verifier\'s fresh one beyond the copied workspace', async () => {
      const env = csvReport.generate({ level: 1 }, createRng('bwrap-folders'));
      const request = sandboxRequest(env, {});
      const a = await backend.start(request);
      const wrote = await a.exec('echo planted > /tmp/left-by-a && echo planted > /dev/shm/left-by-a && echo kept > kept-by-a && echo ok', { cwd: env.sandbox.workdir });
      assert.equal(wrote.stdout, 'ok\n', wrote.stderr);
      // The verifier's fresh sandbox: only the workspace comes across; its /tmp and /dev/shm are new.
      const verifierScript = 'test -e /tmp/left-by-a && exit 1; test -e /dev/shm/left-by-a && exit 1; test -f kept-by-a || exit 1; echo 1 > /logs/verifier/reward.txt';
      const outcome = await runVerifier(a, { ...env, verifier: { ...env.verifier, script: verifierScript } }, backend, request);
      assert.equal(outcome.reward, 1, `${outcome.stdout}${outcome.stderr}`);
      const b = await backend.start(request);
      try {
        const look = await b.exec('ls -A; ls -A /tmp /dev/shm', { cwd: env.sandbox.workdir });
        assert.doesNotMatch(look.stdout, /left-by-a|kept-by-a/);
      } finally {
        await b.stop();
      }
    });

    it('empties /tests and /logs/verifier only once a verifier command could have written there; before that they are the empty folders bwrap made', async () => {
      const fresh = await backend.start(requestFor());
      const used = await backend.start(requestFor());
      try {
        for (const as of ['agent', 'setup'] as const) {
          const tried = await fresh.exec('echo x > /tests/planted; echo 1 > /logs/verifier/reward.txt; ls -A /tests /logs/verifier', { as });
          assert.doesNotMatch(tried.stdout, /planted|reward/, `${as}: ${tried.stdout}`);
        }
        await fresh.resetVerifierDirs();
        const look = await fresh.exec('ls -A /tests /logs/verifier', { as: 'verifier' });
        assert.doesNotMatch(look.stdout, /planted|reward/, look.stdout);
        // A sandbox whose verifier command wrote there is emptied (the in-place path, or a second verification).
        await used.exec('echo x > /tests/planted && echo 1 > /logs/verifier/reward.txt && mkdir /tests/.d', { as: 'verifier' });
        await used.resetVerifierDirs();
        assert.equal((await used.exec('ls -A /tests /logs/verifier | grep -v : | grep .', { as: 'verifier' })).stdout, '');
      } finally {
        await fresh.stop();
        await used.stop();
      }
    });

    it('the namespace set starts inside the sandbox\'s cgroups with its rlimits (the channel binary\'s launcher, no prlimit or shell)', async function () {
      const limits = limitsSchema.parse({ diskMb: 7, pids: 48 });
      const box = (await backend.start(requestFor({ limits }))) as BwrapSandbox;
      try {
        const pid = box.channelPid!;
        assert.match(readFileSync(`/proc/${pid}/cmdline`, 'utf8'), /^[^\0]*bwrap\0/, 'the launcher execs bwrap itself');
        const rl = readFileSync(`/proc/${pid}/limits`, 'utf8');
        assert.match(rl, new RegExp(`Max file size\\s+${7 * 1024 * 1024}\\s+${7 * 1024 * 1024}`), rl);
        assert.match(rl, /Max processes\s+48\s+48/, rl);
        if (process.getuid?.() !== 0) return;
        const groups = readFileSync(`/proc/${pid}/cgroup`, 'utf8');
        for (const c of ['memory', 'pids', 'cpu']) assert.match(groups, new RegExp(`:${c}:/coevolve-${process.pid}-`), groups);
        const inside = await box.exec('cat /proc/self/limits');
        assert.match(inside.stdout, /Max processes\s+48\s+48/, inside.stdout);
      } finally {
        await box.stop();
      }
    });

    it('a link the agent plants toward a host path is never followed by the host, and the host file stays', async () => {
      const host = mkdtempSync(join(tmpdir(), 'coevolve-folders-target-'));
      writeFileSync(join(host, 'victim'), 'host data\n');
      try {
        const box = await backend.start(requestFor());
        await box.exec(`ln -s ${host}/victim victim-link; ln -s ${host} dir-link; ln -s / root-link; echo done`);
        const archive = await box.exportWorkspace();
        assert.deepEqual(archive.report.dropped.map((d) => d.path).sort(), ['dir-link', 'root-link', 'victim-link']);
        await box.stop();
        assert.equal(readFileSync(join(host, 'victim'), 'utf8'), 'host data\n');
        assert.deepEqual(readdirSync(host), ['victim']);
      } finally {
        rmSync(host, { recursive: true, force: true });
      }
    });
  });

  describe('with channel: false (one bwrap per command)', () => {
    const backend = new BwrapBackend({ channel: false });
    after(() => backend.dispose());

    it('shares host folders between its commands and removes them (and their mounts) at stop', async () => {
      const box = (await backend.start(requestFor({ files: [{ path: 'in.txt', content: 'hello\n' }], setup: ['echo prepared > prepared.txt'] }))) as BwrapSandbox;
      try {
        assert.equal(box.hasChannel, false);
        assert.equal(ours().length, 1, 'one host folder');
        const r = await box.exec('cat in.txt prepared.txt; echo more >> prepared.txt; id -u');
        assert.equal(r.stdout, 'hello\nprepared\n65534\n');
        assert.equal((await box.getFile('prepared.txt'))?.toString(), 'prepared\nmore\n');
        if (process.getuid?.() === 0) assert.equal(ourMounts().length, 4, 'ws, tmp, tests and logs are host tmpfs mounts as root');
      } finally {
        await box.stop();
      }
      assert.deepEqual(ours(), []);
      assert.deepEqual(ourMounts(), []);
    });
  });
});
