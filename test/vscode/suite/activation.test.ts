import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { CoevolveApi } from '../../../src/extension/api.js';

const extensionId = 'coevolve.coevolve';

async function activateCoevolve(): Promise<CoevolveApi> {
  const extension = vscode.extensions.getExtension<CoevolveApi>(extensionId);
  assert.ok(extension, `${extensionId} is not loaded in this extension host`);
  return extension.activate();
}

describe('extension shell', () => {
  it('runs in a real extension host', () => {
    assert.match(vscode.version, /^1\.\d+\.\d+/);
    assert.ok(vscode.workspace.workspaceFolders?.length, 'the test workspace folder is open');
  });

  it('activates and returns its test API with the package version', async () => {
    const api = await activateCoevolve();
    const pkg = vscode.extensions.getExtension(extensionId)?.packageJSON as { version: string };
    assert.equal(api.version, pkg.version);
    assert.equal(vscode.extensions.getExtension(extensionId)?.isActive, true);
  });

  it('registers its commands', async () => {
    await activateCoevolve();
    const commands = await vscode.commands.getCommands(true);
    for (const id of ['coevolve.validateWorkspace', 'coevolve.showLog']) assert.ok(commands.includes(id), `${id} is registered`);
  });

  it('contributes the Coevolve view container with the Runs view', async () => {
    await activateCoevolve();
    const commands = await vscode.commands.getCommands(true);
    // The workbench registers these only for a view container and a view it has accepted from package.json.
    assert.ok(commands.includes('workbench.view.extension.coevolve'), 'the view container has its open command');
    assert.ok(commands.includes('coevolve.runs.focus'), 'the Runs view has its focus command');
    await vscode.commands.executeCommand('workbench.view.extension.coevolve');
    await vscode.commands.executeCommand('coevolve.runs.focus');
  });

  it('starts with an empty Runs tree, so the welcome content shows', async () => {
    const api = await activateCoevolve();
    assert.deepEqual(await api.runsProvider.getChildren(), []);
  });

  it('shows its log channel', async () => {
    const api = await activateCoevolve();
    await vscode.commands.executeCommand('coevolve.showLog');
    assert.equal(api.log.name, 'Coevolve');
  });
});
