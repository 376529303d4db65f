// Every outcome the loop counts has an event on a real demo run (bubblewrap), new pairings included, and the report's
// aim by move adds up to the generations' aim records play for play.
import assert from 'node:assert/strict';
import type { RunEvent } from '../../../src/core/ports/runStore.js';
import { buildReport, formatReportMarkdown } from '../../../src/cli/run/report.js';
import { openRun } from '../../../src/store/runReader.js';
import { demoRun, demoRunProblem } from '../../support/demoRun.js';
import { needService } from '../../support/services.js';

describe('child and pairing events on a real demo run', function () {
  this.timeout(600_000);
  let runDir: string;
  before(async function () {
    await needService(this, 'bubblewrap', async () => demoRunProblem());
    // The demo run is held to its progress, not to this suite's limit (it takes many minutes under load).
    this.timeout(0);
    runDir = await demoRun();
  });

  it('records each new pairing with what it pairs, its prediction and screening, and the pair it became', () => {
    const run = openRun(runDir);
    const pairings = run.events.filter((e): e is Extract<RunEvent, { type: 'pair.added' | 'pair.rejected' }> => e.type === 'pair.added' || e.type === 'pair.rejected');
    assert.ok(pairings.some((e) => e.type === 'pair.added'), 'the demo admits new pairings');
    let played = 0;
    for (const e of pairings) {
      assert.ok(e.predicted > 0 && e.predicted < 1, JSON.stringify(e));
      if (e.type !== 'pair.added') continue;
      assert.equal(e.screening?.trials, 4, 'screened like every child');
      // An admitted pair plays under its id, with the same environment and user, when a later generation picks it.
      const planned = run.events.flatMap((x) => (x.type === 'generation.started' ? x.pairs : [])).find((p) => p.pairId === e.pairId);
      if (!planned) continue;
      assert.deepEqual([planned.envId, planned.userId], [e.envId, e.userId]);
      played++;
    }
    assert.ok(played > 0, 'some admitted pairing was played');
  });

  it("adds the report's aim by move up to every generation's aim record", () => {
    const report = buildReport(runDir);
    const perGeneration = report.generations.reduce((t, m) => t + (m.frontierYield.aim?.plays ?? 0), 0);
    assert.ok(perGeneration > 0);
    assert.equal(report.aimByMove.reduce((t, m) => t + m.plays, 0), perGeneration);
    assert.match(formatReportMarkdown(report), /\| new pairing +\| +\d+ \|/);
  });
});
