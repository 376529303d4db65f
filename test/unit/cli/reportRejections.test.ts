// The frontier table names why children were refused in words, and the row stays within a terminal's width with the
// longest reasons a demo generation gives (it drew 146 columns with "realism_unsatisfiable" spelled out).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildReport, formatReportMarkdown, rejectionLabel } from '../../../src/cli/run/report.js';
import { runLayout } from '../../../src/store/layout.js';
import { makeRun } from '../../fixtures/makeRun.js';

describe('report: children refused, in words', function () {
  this.timeout(60_000);
  let tmp: string;
  let dir: string;
  before(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'coevolve-report-rejections-'));
    dir = await makeRun(join(tmp, 'runs'), { generations: 1, pairsPerGeneration: 2, k: 2 });
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('labels each reason and keeps every table line within 140 columns', () => {
    const file = runLayout.generationMetrics(dir, 0);
    const m = JSON.parse(readFileSync(file, 'utf8'));
    m.rejections = { realism_unsatisfiable: 1, screened_out: 3, not_harder: 2 };
    m.frontierYield = { ...m.frontierYield, proposed: 10, accepted: 4 };
    writeFileSync(file, JSON.stringify(m));
    const text = formatReportMarkdown(buildReport(dir));
    assert.match(text, /\| 4\/10 \(1 unrealistic, 3 screened out, 2 not harder\) +\|/);
    // Its events carry no planned predictions (as runs recorded before 2026-12-06): no aim by move, and no table.
    assert.deepEqual(buildReport(dir).aimByMove, []);
    assert.doesNotMatch(text, /by move/);
    for (const line of text.split('\n').filter((l) => l.startsWith('|'))) assert.ok([...line].length <= 140, `${[...line].length} columns: ${line}`);
  });

  it('keeps every table line within 140 columns with a real demo generation\'s metrics (version 2: archive, held-out, race, user effect) and the longest reasons', () => {
    // Generation 1 of a real 5-generation demo (seed 2026, bwrap), its per-pair lists emptied: its race cell is the
    // widest a demo gives ("… · 12-0 promoted"). The frontier columns drew 145-154 columns beside the children.
    const real = JSON.parse(readFileSync(join(__dirname, '../../fixtures/metrics-v2-demo-g0001.json'), 'utf8'));
    real.rejections = { realism_unsatisfiable: 1, screened_out: 3, not_harder: 2 };
    real.frontierYield = { ...real.frontierYield, proposed: 10, accepted: 4 };
    real.archiveBand = { ...real.archiveBand, activePairs: 135 };
    real.userEffect = { ...real.userEffect, meanVsParent: { n: 12, mean: -0.125, ci: [-0.3, 0.05] } };
    writeFileSync(runLayout.generationMetrics(dir, 0), JSON.stringify(real));
    const text = formatReportMarkdown(buildReport(dir));
    assert.match(text, /12-0 promoted/, 'the race cell is in the report');
    assert.match(text, /4\/10 \(1 unrealistic, 3 screened out, 2 not harder\)/);
    assert.match(text, /-0\.13 \(12\)/, 'the user effect cell is in the report');
    for (const line of text.split('\n').filter((l) => l.startsWith('|'))) assert.ok([...line].length <= 140, `${[...line].length} columns: ${line}`);
  });

  it('keeps an unknown reason readable', () => {
    assert.equal(rejectionLabel('oracle_failed'), 'oracle failed');
    assert.equal(rejectionLabel('duplicate'), 'duplicate');
  });
});
