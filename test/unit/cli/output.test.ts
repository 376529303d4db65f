import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createProgressReporter } from '../../../src/cli/run/progress.js';
import { warnOncePerRun } from '../../../src/cli/run/warnOnce.js';
import { runValidate } from '../../../src/cli/commands/validate.js';
import type { GenerationMetrics } from '../../../src/core/metrics/generationMetrics.js';
import type { RolloutSummary } from '../../../src/core/rollout/trajectory.js';

const root = join(__dirname, '../../..');
const cli = (args: string[], cwd = root): { status: number | null; stdout: string; stderr: string } => {
  const r = spawnSync(process.execPath, [join(root, 'dist/cli.js'), ...args], { cwd, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
};

describe('CLI output: human errors, one warning per run, progress in a pipe', function () {
  this.timeout(60_000);
  let tmp: string;
  beforeEach(() => { tmp = mkdtempSync(join(tmpdir(), 'coevolve-cli-out-')); });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  it('a missing run config, a folder, and an environment spec given to `run` each get a sentence, never ENOENT / EISDIR', () => {
    const missing = cli(['run', join(tmp, 'nope.run.yaml')]);
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /nope\.run\.yaml does not exist/);
    assert.doesNotMatch(missing.stderr, /ENOENT/);
    writeFileSync(join(tmp, 'a.run.yaml'), 'kind: Run\n');
    const folder = cli(['run', tmp]);
    assert.match(folder.stderr, /is a folder; `coevolve run` takes a Run spec file \(\*\.run\.yaml\), e\.g\. .*a\.run\.yaml/);
    assert.doesNotMatch(folder.stderr, /EISDIR/);
    const env = cli(['run', join(root, 'environments/log-triage.env.yaml')]);
    assert.match(env.stderr, /log-triage\.env\.yaml is an Environment spec \(kind: Environment\); `coevolve run` takes a Run spec/);
    assert.doesNotMatch(env.stderr, /missing required field/);
  });

  it('report, resume and export name what is wrong with the run directory they were given', () => {
    assert.match(cli(['report', join(tmp, 'gone')]).stderr, /gone does not exist/);
    writeFileSync(join(tmp, 'file.txt'), 'x');
    assert.match(cli(['report', join(tmp, 'file.txt')]).stderr, /file\.txt is a file; give a run directory/);
    mkdirSync(join(tmp, 'runs/demo-20261201-091916'), { recursive: true });
    writeFileSync(join(tmp, 'runs/demo-20261201-091916/manifest.json'), '{}');
    assert.match(cli(['resume', join(tmp, 'runs')]).stderr, /runs is a folder of runs, not a run; name one of them, e\.g\. .*demo-20261201-091916/);
    assert.match(cli(['export', join(tmp, 'empty-not-a-run'), '--format', 'chat-jsonl', '--out', join(tmp, 'o')]).stderr, /does not exist/);
  });

  it('validate rejects the builtinFamilies entry that run rejects, at its position, with the same message', async () => {
    const file = join(tmp, 'typo.run.yaml');
    writeFileSync(file, 'apiVersion: coevolve/v1\nkind: Run\nname: typo\npopulation:\n  builtinFamilies: [log-triage, csv-reprot]\n');
    let out = '';
    const code = await runValidate([file], {}, { out: (t) => { out += t; }, cwd: tmp });
    assert.equal(code, 1);
    assert.match(out, /typo\.run\.yaml:5:33: error: population\.builtinFamilies\[1\]: unknown built-in family "csv-reprot"; did you mean "csv-report"\?/);
    const run = cli(['run', file, '--out', join(tmp, 'out')], tmp);
    assert.equal(run.status, 1);
    assert.match(run.stderr, /unknown built-in family "csv-reprot"; did you mean "csv-report"\?/);
  });

  it('says the unsafe-backend warning once per run and counts the sandboxes instead of repeating it', () => {
    const lines: string[] = [];
    const w = warnOncePerRun((l) => lines.push(l));
    w.warn('the "process" sandbox backend is NOT a sandbox: …');
    for (let i = 0; i < 30; i++) w.warn(`starting an unsandboxed "process" sandbox for g0000-p0000-t${i}`);
    w.warn('the "process" sandbox backend is NOT a sandbox: …');
    assert.deepEqual(lines, ['warning: the "process" sandbox backend is NOT a sandbox: …']);
    assert.equal(w.summary(), 'warning: 30 sandboxes of this run ran UNSANDBOXED (process backend)');
  });

  it('prints progress lines inside each generation when the output is not a terminal, naming generations as the run directory does', () => {
    let text = '';
    const stream = { isTTY: false, write: (t: string) => { text += t; return true; } } as unknown as NodeJS.WriteStream;
    let t = 0;
    const p = createProgressReporter(stream, () => (t += 1000));
    const summary = (i: number): RolloutSummary => ({ id: `r${i}`, generation: 1, pairId: 'p', envId: 'e', userId: 'u', trial: i, hint: false, status: 'terminated', success: i % 2 === 0, reward: 1, durationMs: 1, costUsd: 0, tokens: 0, steps: 1, tags: [] });
    p.onProgress({ type: 'generation.started', generation: 1, generations: 5, rollouts: 8, alreadyDone: 0 });
    for (let i = 1; i <= 8; i++) p.onProgress({ type: 'rollout.finished', generation: 1, done: i, total: 8, summary: summary(i) });
    p.onProgress({ type: 'phase', generation: 1, phase: 'evolving population' });
    const m = { index: 1, successRate: 0.5, inBandShare: 0.25, meanDifficulty: 2, regret: 0.1, frontierYield: { accepted: 2, proposed: 3 }, agent: { id: 'agent-g0001', changed: false } } as unknown as GenerationMetrics;
    p.onProgress({ type: 'generation.finished', generation: 1, metrics: m });
    const lines = text.trim().split('\n');
    assert.equal(lines[0], 'generation 1 (2 of 5): playing 8 rollouts');
    assert.deepEqual(lines.slice(1, 4).map((l) => /^generation 1 \(2 of 5\): (\d)\/8 rollouts · success so far \d+% · \d+ s$/.exec(l)?.[1]), ['2', '4', '6']);
    assert.equal(lines[4], 'generation 1 (2 of 5): evolving population');
    assert.match(lines[5] ?? '', /^ {2}generation 1: success 50% · in band 25%/);
    assert.match(lines[5] ?? '', / · design level 2\.0 · /, 'the design difficulty is named with its scale');
  });

  it('says how many measurement plays a phase after play has made when the piped log has been quiet for 30 s', () => {
    let text = '';
    const stream = { isTTY: false, write: (t: string) => { text += t; return true; } } as unknown as NodeJS.WriteStream;
    let t = 0;
    const p = createProgressReporter(stream, () => t);
    p.onProgress({ type: 'generation.started', generation: 2, generations: 5, rollouts: 0, alreadyDone: 0 });
    p.onProgress({ type: 'phase', generation: 2, phase: 'evolving population' });
    // 100 screening plays, one every second: a line at 30, 60 and 90 s, none in between.
    for (let i = 1; i <= 100; i++) {
      t = i * 1000;
      p.onProgress({ type: 'measurement.finished', generation: 2, purpose: 'screening', done: i });
    }
    const lines = text.trim().split('\n');
    assert.deepEqual(lines.slice(2), [
      'generation 2 (3 of 5): evolving population · 30 measurement plays · 30 s',
      'generation 2 (3 of 5): evolving population · 60 measurement plays · 60 s',
      'generation 2 (3 of 5): evolving population · 90 measurement plays · 90 s',
    ]);
  });

  it("counts plays with an outcome only in the success so far, as the generation's success rate does", () => {
    let text = '';
    const stream = { isTTY: false, write: (t: string) => { text += t; return true; } } as unknown as NodeJS.WriteStream;
    const p = createProgressReporter(stream, () => 0);
    const base: RolloutSummary = { id: 'r', generation: 0, pairId: 'p', envId: 'e', userId: 'u', trial: 0, hint: false, status: 'terminated', success: true, reward: 1, durationMs: 1, costUsd: 0, tokens: 0, steps: 1, tags: [] };
    const plays: RolloutSummary[] = [
      base,
      { ...base, success: false, reward: 0, unfinished: { step: 'verification', reason: 'wall_clock' } },
      { ...base, success: false, reward: 0, status: 'error', errorKind: 'model' },
      { ...base, success: false, reward: 0 },
    ];
    p.onProgress({ type: 'generation.started', generation: 0, generations: 1, rollouts: 4, alreadyDone: 0 });
    plays.forEach((s, i) => p.onProgress({ type: 'rollout.finished', generation: 0, done: i + 1, total: 4, summary: { ...s, id: `r${i}` } }));
    assert.deepEqual([...text.matchAll(/success so far (\d+)%/g)].map((m) => m[1]), ['100', '100', '100'], 'a cut verification and an error are no play');
  });

  it('names both difficulty scales in a generation line with version-2 metrics: measured in logits, design as a level', () => {
    let text = '';
    const stream = { isTTY: false, write: (t: string) => { text += t; return true; } } as unknown as NodeJS.WriteStream;
    const p = createProgressReporter(stream, () => 0);
    const m = {
      index: 0, successRate: 0.5, inBandShare: 0.25, meanDifficulty: 2.66, regret: 0.1, frontierYield: { accepted: 2, proposed: 3 }, agent: { id: 'agent-g0000', changed: false },
      archiveBand: { inBandShare: 0.2, activePairs: 23 }, measuredDifficulty: { archive: { mean: -0.184, se: 0.1 }, agent: { id: 'agent-g0000', ability: -1.127, se: 0.3 } },
    } as unknown as GenerationMetrics;
    p.onProgress({ type: 'generation.finished', generation: 0, metrics: m });
    assert.match(text, / · difficulty measured −0\.18 logits, agent ability −1\.13 · /, 'the agent\'s ability beside the archive, on the same scale');
    assert.match(text, / · design level 2\.7 · /);
    assert.doesNotMatch(text, /difficulty \d/, 'no difficulty figure without its scale');
  });
});
