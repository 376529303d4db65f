import * as assert from 'node:assert/strict';
import { openWorkbench, type E2eSession } from '../support/session.js';

describe('e2e: the installed .vsix in the workbench', function () {
  let session: E2eSession;

  before(async function () {
    session = await openWorkbench();
  });

  after(async function () {
    await session?.browser.close();
  });

  it('shows the Coevolve entry in the activity bar', async function () {
    await session.workbench.activityBarEntry('Coevolve').waitFor({ state: 'visible' });
  });

  it('opens the Coevolve view container with the empty Runs view and its welcome content', async function () {
    const wb = session.workbench;
    await wb.openViewContainer('Coevolve');
    assert.match((await wb.sideBarTitle().textContent()) ?? '', /^Coevolve\b/);
    assert.ok(await wb.sideBarTitle().isVisible(), 'the view container title is visible');
    await wb.viewWelcome().filter({ hasText: 'No runs yet' }).waitFor({ state: 'visible' });
    await wb.screenshot('coevolve-view-container');
  });

  it('validates the workspace specs and lists the broken spec in the Problems panel', async function () {
    const wb = session.workbench;
    await wb.runCommand('Coevolve: Validate Workspace Specs');
    await wb.notification(/spec files? checked/).waitFor({ state: 'visible' });
    await wb.openProblemsPanel();
    const rows = wb.problemRows();
    await rows.filter({ hasText: 'broken.env.yaml' }).first().waitFor({ state: 'visible' });
    const texts = await rows.allTextContents();
    assert.ok(texts.some((t) => /memoryMb/.test(t)), `a problem names memoryMb; rows: ${JSON.stringify(texts)}`);
    await wb.screenshot('coevolve-validate-problems');
  });
});
