// Issue 11, item 5: run-directory readers validate every record before a field becomes a path, report every
// corrupt line with file:line and what was skipped, and salvage what the rollout files still hold. The inputs are
// the issue's: an environment with id "../../x" and a file path with "..", an event with generation
// "/../../tmp/y", a corrupt line in the middle of events.jsonl of a 150-rollout run, a `null` line, a corrupt
// generation JSON and a corrupt environment JSON. (Resume with a truncated rollout file: test/integration/run.)
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { makeRun } from '../../fixtures/makeRun.js';
import { listTree } from '../../support/fileTree.js';
import { buildReport, formatReportMarkdown } from '../../../src/cli/run/report.js';
import { exportRun } from '../../../src/datasets/exportRun.js';
import { runLayout } from '../../../src/store/layout.js';
import { openRun, readEnvironment, readRollout, salvageRollouts } from '../../../src/store/runReader.js';
import { RunPathError, runRecordPath } from '../../../src/store/runPaths.js';

function eventLines(dir: string): string[] {
  return readFileSync(runLayout.events(dir), 'utf8').split('\n').slice(0, -1);
}

function writeEventLines(dir: string, lines: string[]): void {
  writeFileSync(runLayout.events(dir), `${lines.join('\n')}\n`);
}

describe('hostile run directories (issue 11, item 5)', function () {
  this.timeout(60_000);
  let tmp: string;
  let pristine: string;
  let dir: string;
  before(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'coevolve-hostile-run-'));
    // 5 generations x 6 pairs x (4 + 1 hint) plays = 150 rollouts.
    pristine = await makeRun(join(tmp, 'pristine'), { generations: 5, pairsPerGeneration: 6, k: 4, hintPlays: 1 });
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));
  let n = 0;
  beforeEach(() => {
    dir = join(tmp, `run-${++n}`);
    mkdirSync(dir);
    for (const f of listTree(pristine)) {
      mkdirSync(join(dir, f, '..'), { recursive: true });
      writeFileSync(join(dir, f), readFileSync(join(pristine, f)));
    }
  });

  it('the fixture has 150 rollouts', () => {
    assert.equal(openRun(dir).rollouts.size, 150);
  });

  it('a corrupt line in the middle of events.jsonl: reported with file:line, the rollout salvaged from its file', async () => {
    const lines = eventLines(dir);
    const at = lines.findIndex((l, i) => i > lines.length / 2 && l.includes('"rollout.finished"'));
    const id = (JSON.parse(lines[at]!) as { summary: { id: string } }).summary.id;
    lines[at] = lines[at]!.slice(0, 40);
    writeEventLines(dir, lines);

    const report = buildReport(dir);
    assert.equal(report.run.rollouts, 150);
    const problems = report.problems.join('\n');
    assert.match(problems, new RegExp(`events\\.jsonl:${at + 1}: not valid JSON .*; the line was skipped`));
    assert.match(problems, new RegExp(`rollouts/g\\d{4}/${id}\\.json: no rollout\\.finished event for it in events\\.jsonl; its summary was rebuilt from the file`));
    assert.match(formatReportMarkdown(report), /events\.jsonl:\d+: not valid JSON/);

    const r = await exportRun(dir, { format: 'chat-jsonl', outDir: join(tmp, `out-${n}`), filter: 'all', includeHintPlays: true });
    assert.equal(r.considered, 150);
    assert.ok(r.warnings.some((w) => new RegExp(`events\\.jsonl:${at + 1}: not valid JSON`).test(w)), r.warnings.join('\n'));
  });

  it('a `null` line is a clear error with its line, not "Cannot read properties of null"', () => {
    const lines = eventLines(dir);
    lines.splice(10, 0, 'null', '42', '{"seq": 1}', '{"seq":3,"at":"x","type":"rollout.finished","summary":null}');
    writeEventLines(dir, lines);
    const run = openRun(dir);
    assert.equal(run.rollouts.size, 150);
    const problems = run.problems.map((p) => p.message);
    assert.deepEqual(run.problems.map((p) => `${p.file}:${p.line}`), ['events.jsonl:11', 'events.jsonl:12', 'events.jsonl:13', 'events.jsonl:14']);
    assert.match(problems[0]!, /null is not an event \(an event is a JSON object with seq, at and type\); the line was skipped/);
    assert.match(problems[1]!, /42 is not an event/);
    assert.match(problems[2]!, /an event without "type".*; the line was skipped/);
    assert.match(problems[3]!, /a rollout\.finished event: summary: .*; the line was skipped/);
    assert.doesNotMatch(formatReportMarkdown(buildReport(dir)), /Cannot read properties/);
  });

  it('a retired pair ("<envId>@<pairId>", as the controller writes it) is read, not skipped; a crafted one still is', () => {
    const lines = eventLines(dir);
    const seq = lines.length + 1;
    lines.push(JSON.stringify({ seq, at: '2025-01-01T00:00:00.000Z', type: 'spec.retired', kind: 'environment', id: 'dedupe-names@p0013', reason: 'too_easy', generation: 1 }));
    lines.push(JSON.stringify({ seq: seq + 1, at: '2025-01-01T00:00:00.000Z', type: 'spec.retired', kind: 'environment', id: '../x@p1', reason: 'too_easy', generation: 1 }));
    writeEventLines(dir, lines);
    const run = openRun(dir);
    assert.ok(run.events.some((e) => e.type === 'spec.retired' && e.id === 'dedupe-names@p0013'), 'the retired pair is an event of the run');
    assert.deepEqual(run.problems.map((p) => p.line ?? p.message), [seq + 1], JSON.stringify(run.problems));
  });

  it('an event with generation "/../../tmp/y" never makes a reader open a file outside the run', async () => {
    const outside = join(tmp, 'elsewhere', 'y');
    mkdirSync(outside, { recursive: true });
    const lines = eventLines(dir);
    const finished = lines.find((l) => l.includes('"rollout.finished"'))!;
    const ev = JSON.parse(finished) as { seq: number; summary: Record<string, unknown> };
    // Where "rollouts/g/../../tmp/y/<id>.json" would lead: put a planted rollout there.
    const planted = { ...JSON.parse(readFileSync(runLayout.rollout(dir, 0, String(ev.summary.id)), 'utf8')), steps: [{ step_id: 1, timestamp: 'x', source: 'user', message: 'PLANTED-OUTSIDE' }] };
    // rollouts/g + "/../../" is the run directory itself; from there to the planted folder.
    const generation = `/../../${relative(dir, outside)}`;
    writeFileSync(join(outside, `${String(ev.summary.id)}x.json`), JSON.stringify(planted));
    lines.push(JSON.stringify({ ...ev, seq: 9999, summary: { ...ev.summary, id: `${String(ev.summary.id)}x`, generation } }));
    writeEventLines(dir, lines);

    const run = openRun(dir);
    assert.ok(run.problems.some((p) => p.line === lines.length && /summary\.generation/.test(p.message)), JSON.stringify(run.problems));
    const out = join(tmp, `out-${n}`);
    await exportRun(dir, { format: 'chat-jsonl', outDir: out, filter: 'all', includeHintPlays: true });
    for (const f of listTree(out)) assert.ok(!readFileSync(join(out, f), 'utf8').includes('PLANTED-OUTSIDE'), `${f} holds the planted rollout`);
  });

  it('an environment with id "../../x" and a file path with "..": export --format harbor writes only under --out', async () => {
    const env = JSON.parse(readFileSync(runLayout.environment(dir, 'log-triage-l1'), 'utf8'));
    const evil = { ...env, id: '../../x', sandbox: { ...env.sandbox, files: [{ path: '../../../../escape.txt', content: 'ESCAPED' }] } };
    writeFileSync(join(dir, 'environments', 'evil.json'), JSON.stringify(evil));
    const evil2 = { ...env, id: 'evil-two', sandbox: { ...env.sandbox, files: [{ path: '../../../../escape2.txt', content: 'ESCAPED' }] } };
    writeFileSync(join(dir, 'environments', 'evil-two.json'), JSON.stringify(evil2));
    const parent = join(tmp, `harbor-${n}`);
    const out = join(parent, 'a', 'b', 'out');
    const r = await exportRun(dir, { format: 'harbor', outDir: out, filter: 'all' });
    assert.deepEqual(listTree(parent).filter((f) => !f.startsWith(join('a', 'b', 'out'))), [], 'nothing written beside --out');
    assert.ok(!listTree(tmp).some((f) => /escape2?\.txt$|(^|\/)x\/task\.toml$/.test(f)), 'no escaped file anywhere');
    const warnings = r.warnings.join('\n');
    assert.match(warnings, /environments\/evil\.json: not a valid environment record \(id: .*\); skipped/);
    assert.match(warnings, /environments\/evil-two\.json: not a valid environment record \(sandbox\.files\.0\.path: .*\); skipped/);
    assert.ok(r.exported > 0, 'the valid environments are still exported');
  });

  it('a corrupt generation JSON and a corrupt environment JSON name their file', async () => {
    writeFileSync(runLayout.generationMetrics(dir, 2), '{"index": 2, "rollo');
    writeFileSync(runLayout.environment(dir, 'csv-report-l1'), '{"id": "csv-report-l1", ');
    const report = buildReport(dir);
    assert.deepEqual(report.generations.map((g) => g.index), [0, 1, 3, 4]);
    assert.match(report.problems.join('\n'), /generations\/g0002\.json: not valid JSON \(.*\); generation 2 is left out of the report/);
    assert.throws(() => readEnvironment(dir, 'csv-report-l1'), /environments\/csv-report-l1\.json: not valid JSON/);
    const r = await exportRun(dir, { format: 'harbor', outDir: join(tmp, `out-${n}`), filter: 'all' });
    assert.match(r.warnings.join('\n'), /environments\/csv-report-l1\.json: not valid JSON .*; skipped/);
  });

  it('a rollout file that is truncated, or names another rollout, is skipped with its file named', async () => {
    const run = openRun(dir);
    const [a, b] = [...run.rollouts.values()];
    const fa = runLayout.rollout(dir, a!.generation, a!.id);
    writeFileSync(fa, readFileSync(fa, 'utf8').slice(0, 100));
    const fb = runLayout.rollout(dir, b!.generation, b!.id);
    writeFileSync(fb, JSON.stringify({ ...JSON.parse(readFileSync(fb, 'utf8')), id: 'someone-else' }));
    assert.throws(() => readRollout(dir, a!), new RegExp(`rollouts/g0000/${a!.id}\\.json: not valid JSON`));
    assert.throws(() => readRollout(dir, b!), new RegExp(`rollouts/g0000/${b!.id}\\.json: holds rollout "someone-else", not "${b!.id}"`));
    const r = await exportRun(dir, { format: 'chat-jsonl', outDir: join(tmp, `out-${n}`), filter: 'all', includeHintPlays: true });
    assert.equal(r.excluded['rollout file unreadable'], 2);
  });

  it('resume plays a truncated rollout again and keeps the damaged bytes beside the new file (nothing recorded is lost)', async () => {
    const { loadRunHistory } = await import('../../../src/store/runHistory.js');
    const s = [...openRun(dir).rollouts.values()].at(-1)!;
    const f = runLayout.rollout(dir, s.generation, s.id);
    const truncated = readFileSync(f, 'utf8').slice(0, 200);
    writeFileSync(f, truncated);
    const said: string[] = [];
    const history = loadRunHistory(dir, (p) => said.push(`${p.file}: ${p.message}`));
    assert.equal(history.rollout(s.generation, s.id), undefined, 'played again');
    const rel = `rollouts/g000${s.generation}/${s.id}.json`;
    assert.deepEqual(said, [`${rel}: not valid JSON (${said[0]!.match(/not valid JSON \((.*)\); kept/)![1]}); kept as ${rel}.damaged; the rollout is played again`]);
    assert.ok(!existsSync(f), 'the name is free for the replay');
    assert.equal(readFileSync(`${f}.damaged`, 'utf8'), truncated, 'the damaged bytes are kept');
    // Damaged again on a later resume: a second copy, the first untouched.
    writeFileSync(f, '{"trunc');
    loadRunHistory(dir, () => undefined).rollout(s.generation, s.id);
    assert.equal(readFileSync(`${f}.damaged`, 'utf8'), truncated);
    assert.equal(readFileSync(`${f}.damaged-2`, 'utf8'), '{"trunc');
    // report and export say the copies are there; neither takes them for rollouts.
    const run = openRun(dir);
    salvageRollouts(run);
    assert.deepEqual(run.problems.filter((p) => p.file.includes('.damaged')).map((p) => p.file), [`${rel}.damaged`, `${rel}.damaged-2`]);
  });

  it('a damaged rollout file whose rollout.finished line is gone is kept too, not overwritten by the replay', async () => {
    const { loadRunHistory } = await import('../../../src/store/runHistory.js');
    const s = [...openRun(dir).rollouts.values()].at(-2)!;
    writeEventLines(dir, eventLines(dir).filter((l) => !l.includes(`"id":"${s.id}"`)));
    const f = runLayout.rollout(dir, s.generation, s.id);
    writeFileSync(f, '{"half');
    const said: string[] = [];
    assert.equal(loadRunHistory(dir, (p) => said.push(p.message)).rollout(s.generation, s.id), undefined);
    assert.match(said.join('\n'), /damaged, and no rollout\.finished event for it; kept as rollouts\/g\d{4}\/.*\.json\.damaged; the rollout is played again/);
    assert.equal(readFileSync(`${f}.damaged`, 'utf8'), '{"half');
  });

  it('a rollout file that is a link out of the run is not followed', async () => {
    const run = openRun(dir);
    const s = [...run.rollouts.values()][0]!;
    const f = runLayout.rollout(dir, s.generation, s.id);
    writeFileSync(join(tmp, `outside-${n}.json`), readFileSync(f));
    rmSync(f);
    symlinkSync(join(tmp, `outside-${n}.json`), f);
    assert.throws(() => readRollout(dir, s), /a symbolic link that leads outside the run directory/);
  });

  it('salvage ignores files whose name is not a safe id and temp files of a write in progress', () => {
    const g = join(dir, 'rollouts', 'g0000');
    writeFileSync(join(g, 'x.json.tmp-123'), '{');
    writeFileSync(join(g, '.hidden.json'), '{}');
    const run = openRun(dir);
    salvageRollouts(run);
    assert.equal(run.rollouts.size, 150);
    assert.deepEqual(run.problems.map((p) => p.file), ['rollouts/g0000/.hidden.json']);
  });

  describe('runRecordPath: the validated path of record X of run R', () => {
    it('gives the same paths the writer uses', () => {
      assert.equal(runRecordPath(dir, { kind: 'rollout', generation: 3, id: 'g0003-p0001-t0' }), runLayout.rollout(dir, 3, 'g0003-p0001-t0'));
      assert.equal(runRecordPath(dir, { kind: 'environment', id: 'log-triage-l1' }), join(dir, 'environments', 'log-triage-l1.json'));
      assert.equal(runRecordPath(dir, { kind: 'generation', generation: 12 }), join(dir, 'generations', 'g0012.json'));
      assert.equal(runRecordPath(dir, { kind: 'events' }), join(dir, 'events.jsonl'));
    });

    for (const [what, ref] of [
      ['an id with ..', { kind: 'environment', id: '../../x' }],
      ['an id that is ..', { kind: 'user', id: '..' }],
      ['an id with a slash', { kind: 'agent', id: 'a/b' }],
      ['an empty id', { kind: 'rollout', generation: 0, id: '' }],
      ['an id with a NUL', { kind: 'rollout', generation: 0, id: 'a\u0000b' }],
      ['a generation that is a string', { kind: 'rollout', generation: '/../../tmp/y', id: 'x' }],
      ['a negative generation', { kind: 'generation', generation: -1 }],
      ['a fractional generation', { kind: 'generation', generation: 1.5 }],
      ['an artifact path with ..', { kind: 'artifact', path: 'state/../../../etc/passwd' }],
      ['an absolute artifact path', { kind: 'artifact', path: '/etc/passwd' }],
    ] as const) {
      it(`refuses ${what}`, () => {
        assert.throws(() => runRecordPath(dir, ref as never), (e: unknown) => e instanceof RunPathError);
      });
    }
    it('the writer refuses an unsafe id instead of rewriting it to another name', () => {
      assert.throws(() => runLayout.environment(dir, '../../x'), RunPathError);
      assert.ok(!existsSync(join(dir, '..', 'x.json')));
    });
  });
});

describe('curation lines name only ids a run could have written (issue 11, item 5)', () => {
  it('a decision on "../../x" is a reported bad line, not a target', async () => {
    const { parseCuration } = await import('../../../src/store/curation.js');
    const good = { at: '2026-01-01T00:00:00.000Z', target: { kind: 'rollout', id: 'g0000-p0001-t0' }, action: 'accept' };
    const bad = { ...good, target: { kind: 'environment', id: '../../x' } };
    const r = parseCuration(`${JSON.stringify(good)}\n${JSON.stringify(bad)}\nnull\n`);
    assert.equal(r.states.size, 1);
    assert.deepEqual(r.badLines.map((b) => b.line), [2, 3]);
    assert.match(r.badLines[0]!.error, /"target\.id" "\.\.\/\.\.\/x" is not a rollout or environment id/);
  });
});

describe('a run directory removed while a viewer still lists it', () => {
  it('has no files (undefined, not an error), as before the bounded readers', async () => {
    const { readGenerationMetrics } = await import('../../../src/store/runReader.js');
    const tmp = mkdtempSync(join(tmpdir(), 'coevolve-gone-'));
    const dir = await makeRun(tmp, { generations: 1 });
    assert.ok(readGenerationMetrics(dir, 0));
    rmSync(tmp, { recursive: true, force: true });
    assert.equal(readGenerationMetrics(dir, 0), undefined);
    assert.throws(() => readEnvironment(dir, 'log-triage-l1'), /not found/);
  });
});
