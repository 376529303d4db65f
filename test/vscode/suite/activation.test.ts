import * as assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { CoevolveApi } from '../../../src/extension/api.js';
import { commandRegistrar } from '../../../src/extension/commandRegistrar.js';
import { makeRun } from '../../fixtures/makeRun.js';
import { replaceProperty } from '../../support/replaceProperty.js';

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

  it('registers a command through commandRegistrar for as long as the context keeps it', async () => {
    const context = { subscriptions: [] as vscode.Disposable[] };
    const register = commandRegistrar(context);
    register('coevolve.test.registrar', (n: number) => n + 1);
    assert.equal(await vscode.commands.executeCommand('coevolve.test.registrar', 41), 42);
    for (const d of context.subscriptions) d.dispose();
    assert.ok(!(await vscode.commands.getCommands(true)).includes('coevolve.test.registrar'), 'disposed with the context');
  });

  it('shows its log channel', async () => {
    const api = await activateCoevolve();
    await vscode.commands.executeCommand('coevolve.showLog');
    assert.equal(api.log.name, 'Coevolve');
  });
});

// Here, right after the shell's empty-tree check, the registry knows no run yet: later suites open runs it keeps.
describe('Compare Runs with fewer than two runs', () => {
  let runsDir: string;
  let pickers: number[];
  let messages: string[];
  let restore: (() => void)[];

  beforeEach(() => {
    pickers = [];
    messages = [];
    // Every quick pick is counted by its number of items and dismissed; every message is kept.
    restore = [
      replaceProperty(vscode.window, 'showQuickPick', (async (items: readonly unknown[] | Thenable<readonly unknown[]>) => {
        pickers.push((await items).length);
        return undefined;
      }) as typeof vscode.window.showQuickPick),
      replaceProperty(vscode.window, 'showInformationMessage', (async (message: string) => {
        messages.push(message);
        return undefined;
      }) as typeof vscode.window.showInformationMessage),
    ];
  });

  afterEach(() => {
    for (const r of restore) r();
  });

  after(() => {
    if (runsDir) rmSync(runsDir, { recursive: true, force: true });
  });

  it('with no run, says a run is needed instead of showing an empty picker', async () => {
    const api = await activateCoevolve();
    assert.deepEqual(api.runsProvider.registry.list(), [], 'no run yet');
    await vscode.commands.executeCommand('coevolve.compareRuns');
    assert.deepEqual(pickers, [], 'no picker');
    assert.equal(messages.length, 1, `one message: ${messages.join(' | ')}`);
    assert.match(messages[0]!, /no run/i);
  });

  it('with one run, says a second run is needed instead of showing an empty picker', async function () {
    this.timeout(30_000);
    const api = await activateCoevolve();
    const folder = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    runsDir = join(folder, 'runs');
    const runDir = await makeRun(runsDir, { name: 'only', generations: 1, pairsPerGeneration: 1, k: 1, hintPlays: 0 });
    assert.deepEqual(api.runsProvider.registry.list().map((e) => e.dir), [runDir], 'exactly one run');
    await vscode.commands.executeCommand('coevolve.compareRuns');
    await vscode.commands.executeCommand('coevolve.compareRuns', runDir);
    assert.deepEqual(pickers, [], 'no picker: the only run is the first, and there is no second');
    assert.equal(messages.length, 2, `a message each time: ${messages.join(' | ')}`);
    for (const m of messages) assert.match(m, /second run/);
  });
});
