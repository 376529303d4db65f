import * as assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import type { RolloutRecord } from '../../../src/core/rollout/trajectory.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { RunRegistry } from '../../../src/viewdata/runRegistry.js';
import { ViewData } from '../../../src/viewdata/viewRequests.js';
import { openRun, readRollout, type RunIndex } from '../../../src/store/runReader.js';
import { runRecordPath } from '../../../src/store/runPaths.js';
import { rewardTerms } from '../../../src/webview/render/rewardTerms.js';
import { demoRun, demoRunProblem } from '../../support/demoRun.js';
import { needService } from '../../support/services.js';
import { barGeometry, chromiumProblem, cspViolations, launch, openPanel } from './support.js';
import { ownTranscriptCache } from '../../support/transcriptCache.js';

describe('rollout viewer in Chromium on a real demo run', function () {
  this.timeout(600_000);
  let run: RunIndex;
  let records: RolloutRecord[];
  let browser: Browser;
  let data: ViewData;

  before(async function () {
    await needService(this, 'bubblewrap', async () => demoRunProblem());
    await needService(this, 'Chromium', async () => chromiumProblem());
    // The demo run is held to its progress, not to this suite's limit (it takes many minutes under load).
    this.timeout(0);
    run = openRun(await demoRun());
    data = new ViewData(new RunRegistry(() => [dirname(run.dir)]), { transcriptCache: ownTranscriptCache() });
    records = [...run.rollouts.values()].map((s) => readRollout(run.dir, { generation: s.generation, id: s.id }));
    browser = await launch();
  });

  after(async () => {
    await browser?.close();
  });

  const open = (r: RolloutRecord, tab: string) => openPanel(browser, 'rolloutViewer', 'coevolve-rollout-viewer', { runDir: run.dir, generation: r.generation, rolloutId: r.id, tab }, (method, params) => data.handlers[method as 'rollout/get'](params as never));

  it('the reward terms shown add up to the stored total on every rollout of the run', () => {
    for (const r of records) {
      const b = rewardTerms(r.rewards, run.manifest.config.reward);
      assert.ok(b.addsUp, `${r.id}: terms add up to ${b.sum}, stored total ${r.rewards.total}`);
    }
  });

  it('draws every reward bar at the width of its value (a score of 0 is an empty bar, a negative rubric goes left of zero), with no CSP violation', async () => {
    const failedVerifier = records.find((r) => r.rewards.verifier === 0);
    const negative = records.find((r) => r.rewards.rubric < 0) ?? records.find((r) => r.rewards.total < 0.5);
    const passed = records.find((r) => r.success);
    const chosen = [failedVerifier, negative, passed].filter((r): r is RolloutRecord => r !== undefined);
    assert.ok(failedVerifier && passed, 'the demo run has both a failed verifier and a success');
    for (const r of chosen) {
      const panel = await open(r, 'reward');
      try {
        await panel.page.locator('#reward-components .vbar').first().waitFor();
        const bars = await barGeometry(panel.page);
        assert.equal(bars.length, 5 + 5, `${r.id}: 5 components and 4 terms + the total are drawn`);
        for (const b of bars) {
          assert.ok(Math.abs(b.width - b.expectedWidth) < 1.5, `${r.id} ${b.label}: fill ${b.width.toFixed(1)} px, value says ${b.expectedWidth.toFixed(1)} px`);
          assert.ok(Math.abs(b.left - b.expectedLeft) < 1.5, `${r.id} ${b.label}: fill starts at ${b.left.toFixed(1)} px, zero line says ${b.expectedLeft.toFixed(1)} px`);
        }
        const verifierBar = bars.find((b) => b.label.startsWith('verifier:'));
        if (r.rewards.verifier === 0) assert.ok(verifierBar && verifierBar.width < 1, `${r.id}: a verifier score of 0 draws an empty bar`);
        assert.deepEqual(await cspViolations(panel.page), [], `${r.id}: no CSP violation`);
      } finally {
        await panel.close();
      }
    }
  });

  it('shows the hidden facts against what was disclosed, and the agent\'s own reason when it submits', async () => {
    const r = records.find((x) => !x.success && x.steps.some((s) => s.source === 'user')) ?? records[0]!;
    const panel = await open(r, 'user');
    try {
      await panel.page.locator('#facts').waitFor();
      const view = data.handlers['rollout/get']({ runDir: run.dir, generation: r.generation, rolloutId: r.id });
      assert.equal(await panel.page.locator('#facts-table tbody tr').count(), view.facts?.length ?? 0);
      await panel.page.locator('vscode-tab-header[data-tab="transcript"]').click();
      const submit = r.steps.flatMap((s) => s.tool_calls ?? []).find((c) => c.function_name === 'submit');
      assert.ok(submit, 'the rollout submitted');
      await panel.page.keyboard.press('G');
      await panel.page.locator('.submit-summary').first().waitFor();
      assert.equal((await panel.page.locator('.submit-summary').first().textContent())?.trim(), String(submit.arguments['summary']).trim());
      assert.deepEqual(await cspViolations(panel.page), []);
    } finally {
      await panel.close();
    }
  });

  it("names how a rollout ended: the environment's agent timeout apart from the run's wall clock, and a step that did not finish", async () => {
    // The demo's plays all end within their budgets, so one record is given such an ending for this test and put back.
    const r = records.find((x) => x.status === 'terminated') ?? records[0]!;
    const file = runRecordPath(run.dir, { kind: 'rollout', generation: r.generation, id: r.id });
    const original = readFileSync(file, 'utf8');
    const note = "the run's wall clock ran out during the user's rating: no user rating or judge tags; the user's goal counts as not met";
    writeFileSync(file, JSON.stringify({ ...r, status: 'truncated', truncationReason: 'agent_timeout', unfinished: { step: 'rating', reason: 'wall_clock', note } }, null, 2));
    try {
      const panel = await open(r, 'reward');
      try {
        const badge = panel.page.locator('#truncation');
        await badge.waitFor();
        assert.equal((await badge.textContent())?.trim(), 'truncated: agent timeout');
        assert.match((await badge.getAttribute('title')) ?? '', /^agent_timeout: the environment's own agent timeout/);
        assert.equal((await panel.page.locator('#unfinished').textContent())?.trim(), 'unfinished: rating');
        assert.equal(await panel.page.locator('#unfinished').getAttribute('title'), note);
        assert.match((await panel.page.locator('#reward-unfinished').textContent()) ?? '', /Not finished: the run's wall clock ran out during the user's rating/);
        assert.deepEqual(await cspViolations(panel.page), []);
      } finally {
        await panel.close();
      }
    } finally {
      writeFileSync(file, original);
    }
  });
});
