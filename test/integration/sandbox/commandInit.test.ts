// The init of each bwrap command's pid namespace: a small program of its own (reaper.c), exec'd by the process that
// set the namespace up while it shared the supervisor's memory. The command is never that namespace's pid 1, so it
// keeps ordinary signal semantics (the kernel ignores signals an init gets from inside its namespace); its status
// arrives as before; what it leaves behind ends with it; and where the reaper is missing the supervisor's own
// --reap mode does the same work. Real bubblewrap, real supervisor and reaper binaries.
import assert from 'node:assert/strict';
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Sandbox } from '../../../src/core/ports/sandbox.js';
import { limitsSchema } from '../../../src/core/spec/environment.js';
import { BwrapBackend } from '../../../src/sandbox/bwrap/bwrapBackend.js';
import { channelBinary, keepReaperIfItRuns, reaperBeside } from '../../../src/sandbox/channel/binary.js';
import { needService } from '../../support/services.js';
import { bwrapProblem, requestFor } from './support.js';

const limits = limitsSchema.parse({ commandTimeoutSec: 10 });

/** What every command namespace's init must do, whichever program it is. */
function initBehaviour(box: () => Sandbox, init: RegExp): void {
  it('pid 1 of a command is its init, never the command, and it is not the supervisor', async () => {
    const r = await box().exec("tr '\\0' ' ' < /proc/1/cmdline; echo; echo self=$$");
    assert.match(r.stdout.split('\n')[0]!, init);
    assert.match(r.stdout, /self=([2-9]|\d\d+)\n/, 'the command is not pid 1');
  });

  it('a command may signal itself like anywhere else: kill -9 $$ is 137, kill $$ is 143, exit codes pass through', async () => {
    assert.equal((await box().exec('kill -9 $$; echo survived')).exitCode, 137);
    assert.equal((await box().exec('kill $$; echo survived')).exitCode, 143);
    assert.equal((await box().exec('exit 7')).exitCode, 7);
    assert.equal((await box().exec(['no-such-program'])).exitCode, 127);
  });

  it('a timeout inside the command works (busybox timeout signals the process that exec\'d it)', async () => {
    const t = performance.now();
    // As the command itself (argv, no shell around it): were it its namespace's pid 1, the signal its watcher child
    // sends it would be ignored and only the channel's 10-second limit would end it.
    const r = await box().exec(['timeout', '1', 'sleep', '8']);
    assert.ok(performance.now() - t < 6000, 'ended by its own timeout, not the channel\'s');
    assert.ok([124, 143].includes(r.exitCode), `exit ${r.exitCode}`);
  });

  it('what the command leaves running ends with it; the agent cannot signal or read its init', async () => {
    const bg = await box().exec('(sleep 30 &) ; setsid sleep 31 & echo started');
    assert.equal(bg.stdout, 'started\n');
    const ps = await box().exec('ps -o pid,args | grep -c "sleep 3[01]"; true');
    assert.equal(ps.stdout.trim(), '0', 'nothing of the earlier command is visible, let alone running');
    const r = await box().exec('kill -9 1; kill -STOP 1; sleep 0.1; grep State /proc/1/status; cat /proc/1/environ; echo environ=$?; head -c 10 /proc/1/mem; echo mem=$?; readlink /proc/1/exe; echo exe=$?');
    // The kernel ignores both signals from inside (the syscall itself succeeds): the init sleeps on, not stopped.
    assert.match(r.stdout, /State:\s+S \(sleeping\)/);
    assert.match(r.stdout, /environ=1[^]*mem=1[^]*exe=1/, 'its environment, memory and executable are not the agent\'s to read');
    assert.equal((r.stderr.match(/Permission denied/g) ?? []).length, 2, r.stderr);
    assert.equal((await box().exec('echo alive')).stdout, 'alive\n');
  });

  it('the verifier\'s folders stay covered for the agent and open for the verifier', async () => {
    const agent = await box().exec('ls -A /tests | wc -l; touch /tests/x 2>&1; echo rc=$?');
    assert.match(agent.stdout, /^0\n[^]*rc=[1-9]/);
    const verifier = await box().exec('test -w /tests && echo writable', { as: 'verifier' });
    assert.equal(verifier.stdout, 'writable\n');
  });
}

describe('bwrap command namespaces: the init', function () {
  this.timeout(120_000);
  let backend: BwrapBackend;
  let box: Sandbox;

  before(async function () {
    await needService(this, 'bwrap', bwrapProblem);
    backend = new BwrapBackend();
    box = await backend.start(requestFor({ limits }));
  });
  after(async () => {
    await box?.stop();
    await backend?.dispose();
  });

  it('the reaper is built beside the supervisor on this machine (x64 or arm64 with gcc)', async () => {
    assert.ok(reaperBeside(await channelBinary()), 'coevolve-reaper beside coevolve-channel');
  });

  it('a reaper that does not run as an init must (leave 255 with nothing to wait for) is not kept', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'coevolve-reaper-check-'));
    try {
      const copy = join(dir, 'real');
      copyFileSync(reaperBeside(await channelBinary())!, copy);
      chmodSync(copy, 0o755);
      const broken = { exits0: '#!/bin/sh\nexit 0\n', crashes: '#!/bin/sh\nkill -SEGV $$\n', hangs: '#!/bin/sh\nexec sleep 30\n' };
      for (const [name, text] of Object.entries(broken)) writeFileSync(join(dir, name), text, { mode: 0o755 });
      for (const name of ['real', ...Object.keys(broken)]) await keepReaperIfItRuns(join(dir, name));
      assert.deepEqual(readdirSync(dir), ['real']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  initBehaviour(() => box, /^coevolve-reaper \d+ $/);

  describe('without the reaper (an architecture it has no stub for): the supervisor\'s --reap mode', () => {
    let fallback: Sandbox;
    let reaper: string;
    before(async () => {
      reaper = reaperBeside(await channelBinary())!;
      // Hidden only while this sandbox starts: the supervisor is told of a reaper only when the file is there.
      renameSync(reaper, `${reaper}.hidden`);
      try {
        fallback = await backend.start(requestFor({ limits }));
      } finally {
        renameSync(`${reaper}.hidden`, reaper);
      }
    });
    after(async () => {
      await fallback?.stop();
      assert.ok(existsSync(reaper));
    });
    initBehaviour(() => fallback, /^coevolve-channel --reap \d+ $/);
  });
});
