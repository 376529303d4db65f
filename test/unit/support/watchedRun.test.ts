// The progress watchdog that whole-run integration tests use instead of a fixed deadline, on real child processes
// (sh, which starts in milliseconds even on a loaded machine; the limits here are seconds).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runWatched, treeSize } from '../../support/watchedRun.js';

describe('runWatched: a child process held to progress, not to a fixed deadline', function () {
  this.timeout(30_000);

  it('ends a child that goes quiet and reports what it printed on both streams', async () => {
    const started = Date.now();
    // `exec` makes the sleep the child itself, so ending the child ends the wait.
    await assert.rejects(
      runWatched('sh', ['-c', 'echo started the work; echo a warning >&2; exec sleep 60'], { quietMs: 1_000, pollMs: 100, cpuStepMs: 100 }),
      (err: Error) => {
        // A sleeping child uses no CPU, so counting CPU as progress does not keep a hung child alive.
        assert.match(err.message, /went quiet: nothing new printed or computed for \d+ s \(quiet limit 1 s\)/);
        assert.match(err.message, /stdout[^\n]*\nstarted the work/);
        assert.match(err.message, /stderr[^\n]*\na warning/);
        return true;
      },
    );
    assert.ok(Date.now() - started < 15_000, 'the quiet child was ended, not waited for');
  });

  it('lets a child that keeps printing run well past the quiet limit, and returns all it printed', async () => {
    const r = await runWatched('sh', ['-c', 'for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo tick $i; echo tock $i >&2; sleep 0.25; done; exit 3'], { quietMs: 1_000, pollMs: 100 });
    assert.ok(r.ms > 2_000, `ran ${r.ms} ms, more than twice the quiet limit`);
    assert.equal(r.code, 3);
    assert.equal(r.stdout.split('\n').filter((l) => l.startsWith('tick')).length, 12);
    assert.match(r.stderr, /^tock 12$/m);
  });

  it('counts a change of the given progress measure as progress when the child prints nothing', async () => {
    let written = 0;
    const r = await runWatched('sh', ['-c', 'sleep 2.5; echo done'], { quietMs: 1_000, pollMs: 100, progress: () => written++ });
    assert.equal(r.code, 0);
    assert.equal(r.stdout, 'done\n');
  });

  it("counts CPU used by a silent child's descendants as progress, when asked to", async () => {
    // A shell that waits on a grandchild busy for 4 s of wall time, printing nothing until the end (as the CLI waits on
    // its sandboxes); even on a loaded machine the grandchild gets 100 ms of CPU in 3 s.
    const script = `"${process.execPath}" -e 'const end = Date.now() + 4000; while (Date.now() < end);'; echo worked`;
    const r = await runWatched('sh', ['-c', script], { quietMs: 3_000, pollMs: 100, cpuStepMs: 100 });
    assert.equal(r.stdout, 'worked\n');
    await assert.rejects(runWatched('sh', ['-c', script], { quietMs: 3_000, pollMs: 100 }), /went quiet: nothing new printed for/, 'without counting CPU the same child is quiet');
  });

  it('ends a child that makes progress but runs past the overall cap', async () => {
    await assert.rejects(
      runWatched('sh', ['-c', 'while true; do echo busy; sleep 0.1; done'], { quietMs: 1_000, capMs: 1_500, pollMs: 100 }),
      /ran past its overall cap of 1\.5 s while still making progress[\s\S]*busy/,
    );
  });

  it('treeSize grows with every file written anywhere under a folder, and is 0 for a missing one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'coevolve-tree-size-'));
    try {
      assert.equal(treeSize(join(dir, 'missing')), 0);
      const empty = treeSize(dir);
      mkdirSync(join(dir, 'rollouts', 'g0000'), { recursive: true });
      writeFileSync(join(dir, 'rollouts', 'g0000', 'r1.json'), '');
      const oneEmptyFile = treeSize(dir);
      assert.ok(oneEmptyFile > empty, 'an empty new file counts');
      writeFileSync(join(dir, 'events.jsonl'), '{}\n');
      assert.ok(treeSize(dir) > oneEmptyFile);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
