// Issue 11, item 5: `resume` of a run whose directory was damaged. A truncated rollout file in the generation being
// resumed made every resume fail; a corrupt or `null` line in the middle of events.jsonl silently dropped rollouts.
// A real run (built-in roles, bwrap) is played to completion, then its last generation is undone as a kill would
// leave it, the damage is applied, and the resumed run must reach the same report, saying what it found.
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { runCli, runCliWatched } from '../../support/cli.js';
import { needService } from '../../support/services.js';
import { bwrapProblem } from '../sandbox/support.js';

interface Report { generations: unknown[]; run: { status: string; rollouts: number }; problems: string[] }

function report(runDir: string): Report {
  const r = runCli(['report', runDir, '--json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as Report;
}

describe('resume of a damaged run directory (bwrap)', function () {
  this.timeout(900_000);
  let tmp: string;
  let baselineDir: string;
  let baseline: Report;
  before(async function () {
    await needService(this, 'bwrap', bwrapProblem);
    tmp = mkdtempSync(join(tmpdir(), 'coevolve-damaged-'));
    const cfg = parseYaml(readFileSync(resolve('test/fixtures/runs/small.run.yaml'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(tmp, 'damaged.run.yaml'), stringifyYaml({ ...cfg, name: 'damaged', generations: 2, sandbox: { backend: 'bwrap' } }));
    // Two generations on bwrap take minutes more under load: the run is held to its progress, not to this limit.
    this.timeout(0);
    const r = await runCliWatched(['run', join(tmp, 'damaged.run.yaml'), '--out', join(tmp, 'baseline')], { watchDir: join(tmp, 'baseline') });
    assert.equal(r.code, 0, `${r.stderr}\n${r.stdout}`);
    baselineDir = join(tmp, 'baseline', readdirSync(join(tmp, 'baseline'))[0]!);
    baseline = report(baselineDir);
    assert.deepEqual(baseline.problems, []);
  });
  after(() => tmp && rmSync(tmp, { recursive: true, force: true }));

  /** A copy of the finished run with its last generation's end undone, as a kill after its last rollout leaves it. */
  function interruptedCopy(name: string): { dir: string; lines: string[]; lastGen: number } {
    const dir = join(tmp, name);
    cpSync(baselineDir, dir, { recursive: true });
    const lines = readFileSync(join(dir, 'events.jsonl'), 'utf8').split('\n').slice(0, -1);
    const lastGen = baseline.generations.length - 1;
    const cut = lines.findIndex((l) => { const e = JSON.parse(l) as { type: string; generation?: number }; return e.type === 'generation.finished' && e.generation === lastGen; });
    lines.length = cut;
    rmSync(join(dir, 'generations', `g${String(lastGen).padStart(4, '0')}.json`));
    writeFileSync(join(dir, 'events.jsonl'), `${lines.join('\n')}\n`);
    return { dir, lines, lastGen };
  }

  const finishedIn = (lines: string[], gen: number): number[] => lines.flatMap((l, i) => { const e = JSON.parse(l) as { type: string; summary?: { generation: number } }; return e.type === 'rollout.finished' && e.summary!.generation === gen ? [i] : []; });

  it('a truncated rollout file in the generation being resumed is played again, not a failure every time', () => {
    const { dir, lines, lastGen } = interruptedCopy('truncated');
    const victim = JSON.parse(lines[finishedIn(lines, lastGen)[0]!]!) as { summary: { id: string } };
    const file = join(dir, 'rollouts', `g${String(lastGen).padStart(4, '0')}`, `${victim.summary.id}.json`);
    const truncated = readFileSync(file, 'utf8').slice(0, 200);
    writeFileSync(file, truncated);
    const r = runCli(['resume', dir]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, new RegExp(`warning: rollouts/g\\d{4}/${victim.summary.id}\\.json: not valid JSON .*; kept as rollouts/g\\d{4}/${victim.summary.id}\\.json\\.damaged; the rollout is played again`));
    assert.equal(readFileSync(`${file}.damaged`, 'utf8'), truncated, 'nothing recorded is lost: the damaged bytes are kept beside the replayed file');
    const after = report(dir);
    assert.equal(after.run.status, 'completed');
    assert.deepEqual(after.generations, baseline.generations, 'the replayed rollout gives the same metrics');
    assert.equal(after.run.rollouts, baseline.run.rollouts);
    assert.ok(JSON.parse(readFileSync(file, 'utf8')), 'the file is whole again');
    assert.ok(after.problems.some((p) => p.includes(`${victim.summary.id}.json.damaged: a damaged rollout file that resume kept`)), 'report says the copy is there');
  });

  it('a corrupt line and a null line in the middle of events.jsonl: said, the rollout kept from its file, same report', () => {
    const { dir, lines, lastGen } = interruptedCopy('corrupt-line');
    const at = finishedIn(lines, lastGen);
    const corrupt = at[Math.floor(at.length / 2)]!;
    const lost = (JSON.parse(lines[corrupt]!) as { summary: { id: string } }).summary.id;
    lines[corrupt] = lines[corrupt]!.slice(0, 50);
    lines.splice(corrupt + 1, 0, 'null');
    writeFileSync(join(dir, 'events.jsonl'), `${lines.join('\n')}\n`);
    const fileBefore = readFileSync(join(dir, 'rollouts', `g${String(lastGen).padStart(4, '0')}`, `${lost}.json`), 'utf8');

    const before = report(dir);
    assert.equal(before.run.rollouts, baseline.run.rollouts, 'report counts the rollout from its file');
    assert.ok(before.problems.some((p) => p.startsWith(`events.jsonl:${corrupt + 1}: not valid JSON`)), before.problems.join('\n'));
    assert.ok(before.problems.some((p) => p.startsWith(`events.jsonl:${corrupt + 2}: null is not an event`)));

    const r = runCli(['resume', dir]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, new RegExp(`warning: events\\.jsonl:${corrupt + 1}: not valid JSON`));
    assert.match(r.stderr, new RegExp(`warning: rollouts/g\\d{4}/${lost}\\.json: no rollout\\.finished event for it in events\\.jsonl; its summary was rebuilt from the file`));
    const after = report(dir);
    assert.equal(after.run.status, 'completed');
    assert.deepEqual(after.generations, baseline.generations);
    assert.equal(after.run.rollouts, baseline.run.rollouts);
    assert.equal(readFileSync(join(dir, 'rollouts', `g${String(lastGen).padStart(4, '0')}`, `${lost}.json`), 'utf8'), fileBefore, 'kept, not played again');
    assert.ok(after.problems.every((p) => p.startsWith('events.jsonl:')), 'after the repair only the damaged lines themselves remain to report');
    assert.ok(existsSync(join(dir, 'generations', `g${String(lastGen).padStart(4, '0')}.json`)));
  });
});
