import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import Docker from 'dockerode';
import { openRun } from '../../../src/store/runReader.js';
import { runCli, runCliWatched, startCli } from '../../support/cli.js';
import { needService } from '../../support/services.js';

const config = resolve('test/fixtures/runs/small.run.yaml');

function onlyRun(out: string): string {
  const dirs = readdirSync(out).filter((d) => existsSync(join(out, d, 'manifest.json')));
  assert.equal(dirs.length, 1, `one run directory in ${out}`);
  return join(out, dirs[0]!);
}

function report(runDir: string): { generations: unknown[]; run: { status: string; rollouts: number } } {
  const r = runCli(['report', runDir, '--json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

/** A whole run, held to its progress rather than a deadline: the caller's hook or test calls `this.timeout(0)`. */
async function runToCompletion(out: string, extra: string[] = []): Promise<string> {
  const r = await runCliWatched(['run', config, '--out', out, ...extra], { watchDir: out });
  assert.equal(r.code, 0, `run ${extra.join(' ')} failed:\n${r.stderr}\n${r.stdout}`);
  return onlyRun(out);
}

/** Kills `child` (kill -9) once the run's events.jsonl under `out` has `events` lines; false when it ended first. */
async function killAt(child: ChildProcess, out: string, events: number): Promise<{ killed: boolean; stderr: string }> {
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const killed = await new Promise<boolean>((res) => {
    const timer = setInterval(() => {
      const dirs = existsSync(out) ? readdirSync(out) : [];
      const ev = dirs[0] ? join(out, dirs[0], 'events.jsonl') : '';
      const lines = ev && existsSync(ev) ? readFileSync(ev, 'utf8').split('\n').length - 1 : 0;
      if (lines >= events) {
        clearInterval(timer);
        child.kill('SIGKILL');
        res(true);
      }
    }, 20);
    child.on('exit', () => {
      clearInterval(timer);
      res(false);
    });
  });
  if (child.exitCode === null && child.signalCode === null) await new Promise((r) => child.on('exit', r));
  return { killed, stderr };
}

async function leftoverContainers(runId: string): Promise<number> {
  const list = await new Docker().listContainers({ all: true, filters: { label: [`coevolve.run=${runId}`] } });
  return list.length;
}

describe('co-evolution run (docker backend)', function () {
  this.timeout(900_000);
  const outs: string[] = [];
  const tmp = (): string => {
    const d = mkdtempSync(join(tmpdir(), 'coevolve-run-'));
    outs.push(d);
    return d;
  };
  let baseline: ReturnType<typeof report>;
  let baselineDir: string;

  before(async function () {
    await needService(this, 'docker', async () => {
      try {
        await new Docker().ping();
      } catch (err) {
        return `Docker does not answer: ${(err as Error).message}`;
      }
      try {
        await new Docker().getImage('coevolve/busybox:latest').inspect();
      } catch {
        return 'image coevolve/busybox:latest missing (coevolve sandbox build-image)';
      }
      return undefined;
    });
    // Three generations on Docker take minutes more under load: the run is held to its progress, not to this limit.
    this.timeout(0);
    baselineDir = await runToCompletion(tmp());
    baseline = report(baselineDir);
  });
  after(() => outs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('runs every generation and records everything', async () => {
    const run = openRun(baselineDir);
    assert.equal(run.status, 'completed');
    assert.equal(baseline.generations.length, 3);
    const gens = baseline.generations as { index: number; rollouts: number; successRate: number; passAtK: Record<string, number>; passHatK: Record<string, number>; meanReward: number; regret: number; meanDifficulty: number; inBandShare: number; rejections: Record<string, number>; tokens: number; costUsd: number }[];
    for (const g of gens) {
      for (const key of ['index', 'rollouts', 'successRate', 'meanReward', 'regret', 'meanDifficulty', 'inBandShare', 'tokens', 'costUsd'] as const) assert.equal(typeof g[key], 'number', key);
      assert.equal(typeof g.passAtK['1'], 'number');
      assert.equal(typeof g.passHatK['4'], 'number');
      assert.equal(typeof g.rejections, 'object');
      assert.ok(g.rollouts >= 4 * 2, 'k plays per pair');
    }
    // Every rollout file exists and matches its summary.
    for (const [id, s] of run.rollouts) {
      const file = join(baselineDir, 'rollouts', `g${String(s.generation).padStart(4, '0')}`, `${id}.json`);
      const rec = JSON.parse(readFileSync(file, 'utf8'));
      assert.equal(rec.rewards.total, s.reward);
      assert.equal(rec.sandbox.backend, 'docker');
      assert.ok(rec.steps.length >= 2, 'the user opened and the agent acted');
    }
    assert.ok(run.specs.size > 4, 'children entered the archive');
    assert.equal(await leftoverContainers(run.manifest.runId), 0, 'no container left behind');
  });

  it('gives the same report at concurrency 1 and 8', async function () {
    // Both runs at once: the claim is about the report, and two runs side by side also share the Docker engine. Two
    // whole runs at once take longest of all under load: each is held to its progress, not to this suite's limit.
    this.timeout(0);
    const [one, eight] = await Promise.all(['1', '8'].map(async (c) => report(await runToCompletion(tmp(), ['--concurrency', c]))));
    assert.deepEqual(one!.generations, baseline.generations);
    assert.deepEqual(eight!.generations, baseline.generations);
  });

  it('resumes after kill -9 at events 3, 30 and 70 (one run killed three times, the last two while resuming) to the same report', async function () {
    // One run killed again and again costs one run, not three, and checks more: a resumed run survives its own kill.
    // It plays a whole run, which took 22 min at load 25 (the baseline above): the last resume is held to its
    // progress, and the kills to the cap a watched run has, not to this suite's 900 s.
    this.timeout(45 * 60_000);
    const out = tmp();
    let child = startCli(['run', config, '--out', out]);
    let dir = '';
    for (const killAfterEvents of [3, 30, 70]) {
      const { killed, stderr } = await killAt(child, out, killAfterEvents);
      assert.ok(killed, `the run ended before ${killAfterEvents} events: ${stderr}`);
      dir = onlyRun(out);
      assert.equal(openRun(dir).status, 'interrupted', `interrupted after the kill at event ${killAfterEvents}`);
      if (killAfterEvents !== 70) child = startCli(['resume', dir]);
    }
    const resumed = await runCliWatched(['resume', dir], { watchDir: dir });
    assert.equal(resumed.code, 0, resumed.stderr);
    const after = report(dir);
    assert.equal(after.run.status, 'completed');
    assert.deepEqual(after.generations, baseline.generations);
    assert.equal(after.run.rollouts, baseline.run.rollouts, 'no rollout lost or played twice');
    // A run start reaps what the killed process left behind.
    runCli(['sandbox', 'reap']);
    assert.equal(await leftoverContainers(openRun(dir).manifest.runId), 0);
  });
});
