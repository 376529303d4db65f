import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecOptions, ExecResult, Sandbox, SandboxBackend } from '../../../src/core/ports/sandbox.js';
import { limitsSchema } from '../../../src/core/spec/environment.js';
import { BwrapBackend } from '../../../src/sandbox/bwrap/bwrapBackend.js';
import { DockerBackend } from '../../../src/sandbox/docker/dockerBackend.js';
import { rootfsDir } from '../../../src/sandbox/images/baseImages.js';
import { needService } from '../../support/services.js';
import { bwrapProblem, dockerProblem, leftovers, requestFor, testLabels } from './support.js';

// Hostile commands on every isolating backend: each is contained, reported in the result, leaves the host
// responsive, and nothing is left behind. A unique sleep length marks our processes on the host.
const marker = 2147483641;
const limits = limitsSchema.parse({ memoryMb: 64, pids: 32, commandTimeoutSec: 5, maxOutputBytes: 64 * 1024 });

const backends: { name: string; problem: () => Promise<string | undefined>; make: () => SandboxBackend }[] = [
  { name: 'docker', problem: () => dockerProblem(), make: () => new DockerBackend({ labels: testLabels }) },
  { name: 'bwrap', problem: bwrapProblem, make: () => new BwrapBackend() },
];

function hostStillAnswers(): void {
  const r = spawnSync('sh', ['-c', 'echo alive'], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(r.stdout, 'alive\n', 'the host can still start processes');
}

function ourProcessesLeft(): string {
  return spawnSync('pgrep', ['-af', `sleep ${marker}`], { encoding: 'utf8' }).stdout.trim();
}

for (const b of backends) {
  describe(`hostile commands on ${b.name}`, function () {
    this.timeout(120_000);
    let backend: SandboxBackend;
    let box: Sandbox;
    const canary = join(tmpdir(), `coevolve-canary-${process.pid}`);

    /** Every hostile command goes through the command channel, never the fallback. */
    const run = async (command: string, options: ExecOptions = {}): Promise<ExecResult> => {
      const r = await box.exec(command, options);
      assert.equal(r.via, 'channel', 'served by the command channel');
      return r;
    };

    before(async function () {
      await needService(this, b.name, b.problem);
      writeFileSync(canary, 'host secret');
      backend = b.make();
      box = await backend.start(requestFor({ limits }));
    });
    after(async () => {
      await box?.stop();
      await backend?.dispose();
      rmSync(canary, { force: true });
    });

    it('a fork bomb is held by the pids limit and stopped by the timeout', async () => {
      const r = await run('bomb() { bomb | bomb & }; bomb; sleep 3; echo survived', { timeoutMs: 3000 });
      assert.ok(r.timedOut || r.exitCode !== 0 || /survived/.test(r.stdout), `reported: ${JSON.stringify({ ...r, stderr: r.stderr.slice(0, 200) })}`);
      hostStillAnswers();
      // The sandbox still works once the bomb is gone.
      let after = await run('echo ok', { timeoutMs: 10_000 });
      for (let i = 0; i < 10 && after.stdout !== 'ok\n'; i++) after = await run('echo ok', { timeoutMs: 10_000 });
      assert.equal(after.stdout, 'ok\n');
    });

    it('1 GB written to stdout is cut, keeping head and tail, and the command is stopped', async () => {
      const r = await run('echo FIRST; head -c 1073741824 /dev/zero | tr "\\0" x; echo LAST', { timeoutMs: 60_000 });
      assert.equal(r.truncated, true);
      assert.ok(r.stdout.startsWith('FIRST\n'));
      assert.ok(r.stdout.length < 70 * 1024, `kept ${r.stdout.length} bytes`);
      assert.match(r.stdout, /bytes of output cut/);
      assert.match(r.stderr, /command stopped after writing more than/);
      hostStillAnswers();
    });

    it('sleep infinity times out', async () => {
      const r = await run(`sleep ${marker}`, { timeoutMs: 1000 });
      assert.equal(r.timedOut, true);
      assert.equal(r.exitCode, 124);
      assert.equal((await run(`ps | grep -c "[s]leep ${marker}" || true`)).stdout.trim(), '0');
    });

    it('allocating past the memory limit is killed, not the host', async () => {
      const r = await run('awk \'BEGIN { s = "xxxxxxxxxxxxxxxx"; while (1) s = s s }\'', { timeoutMs: 20_000 });
      assert.notEqual(r.exitCode, 0);
      assert.equal(r.timedOut, false);
      hostStillAnswers();
    });

    it('cannot open a network connection', async () => {
      const r = await run('wget -q -T 3 -O - http://1.1.1.1/ || nc -w 3 1.1.1.1 80 </dev/null; echo "rc=$?"; cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d " "');
      assert.match(r.stdout, /rc=[1-9]/);
      assert.match(r.stdout, /\nlo\n?$/);
    });

    it('cannot write outside the workspace', async () => {
      const r = await run('echo x > /etc/pwned; echo x > /pwned; echo x > /bin/pwned; ls /etc/pwned /pwned 2>&1; echo x > /workspace/fine && echo wrote-workspace');
      assert.match(r.stderr, /Read-only file system|Permission denied/);
      assert.match(r.stdout, /wrote-workspace/);
      assert.ok(!existsSync('/etc/pwned') && !existsSync('/pwned'));
      assert.ok(!existsSync(join(rootfsDir('busybox'), 'etc/pwned')));
    });

    it('cannot read the host\'s files', async () => {
      const r = await run(`cat ${canary} /root/.bash_history /etc/shadow 2>&1; ls /root 2>&1 | head -3; echo done`);
      assert.doesNotMatch(r.stdout, /host secret/);
      assert.match(r.stdout, /done/);
    });

    it('leaves nothing behind', async () => {
      await box.stop();
      await backend.dispose();
      assert.equal(ourProcessesLeft(), '');
      if (b.name === 'docker') assert.deepEqual(await leftovers(), { containers: [], volumes: [] });
      const ours = readdirSync(tmpdir()).filter((e) => e.startsWith(`coevolve-sbx-${process.pid}-`));
      assert.deepEqual(ours, []);
      const cgroups = existsSync('/sys/fs/cgroup/pids') ? readdirSync('/sys/fs/cgroup/pids').filter((e) => e.startsWith(`coevolve-${process.pid}-`)) : [];
      assert.deepEqual(cgroups, []);
    });
  });
}
