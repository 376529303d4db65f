import * as assert from 'node:assert/strict';
import { appendFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { CoevolveApi } from '../../../src/extension/api.js';
import type { RunTreeNode } from '../../../src/extension/runs/runTreeModel.js';
import type { RolloutView } from '../../../src/webview/protocol.js';
import { makeRun } from '../../fixtures/makeRun.js';
import { replaceProperty } from '../../support/replaceProperty.js';

const extensionId = 'coevolve.coevolve';

async function api(): Promise<CoevolveApi> {
  const extension = vscode.extensions.getExtension<CoevolveApi>(extensionId);
  assert.ok(extension, `${extensionId} is not loaded`);
  return extension.activate();
}

async function until<T>(what: string | (() => string), probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('runs editor: tree, viewer, dashboard and commands on a fixture run', function () {
  this.timeout(60_000);
  let runsDir: string;
  let runDir: string;
  let liveDir: string;

  before(async function () {
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, 'a workspace folder is open');
    runsDir = join(folder.uri.fsPath, 'runs');
    runDir = await makeRun(runsDir, { name: 'fixture', generations: 3, pairsPerGeneration: 3, k: 2, hintPlays: 1 });
  });

  after(function () {
    // Later suites (and the shell's "empty tree" check when re-run) expect a workspace without runs.
    rmSync(runsDir, { recursive: true, force: true });
  });

  it('builds the tree from the run directory: run → generation → pair → rollout', async function () {
    const { runsProvider } = await api();
    const roots = await until('the fixture run in the tree', () => {
      const r = runsProvider.getChildren();
      return r.some((n) => n.runDir === runDir && n.description.startsWith('completed')) && r;
    });
    const run = roots.find((n) => n.runDir === runDir) as RunTreeNode;
    assert.equal(run.kind, 'run');
    assert.match(run.description, /completed · 3\/3 generations · 27 rollouts/);
    const item = runsProvider.getTreeItem(run);
    assert.equal(item.contextValue, 'coevolve.run.completed');
    const gens = runsProvider.getChildren(run);
    assert.deepEqual(gens.map((g) => g.label), ['Generation 0', 'Generation 1', 'Generation 2']);
    const pairs = runsProvider.getChildren(gens[0]);
    assert.equal(pairs.length, 3);
    const rollouts = runsProvider.getChildren(pairs[0]);
    assert.equal(rollouts.length, 3);
    const rolloutItem = runsProvider.getTreeItem(rollouts[0] as RunTreeNode);
    assert.equal(rolloutItem.command?.command, 'coevolve.openRollout');
    assert.ok(rolloutItem.iconPath instanceof vscode.ThemeIcon);
    assert.equal(runsProvider.getParent(rollouts[0] as RunTreeNode)?.key, pairs[0]?.key);
  });

  it('refreshes live when a run directory appears and grows', async function () {
    const { runsProvider } = await api();
    liveDir = await makeRun(runsDir, { name: 'live', generations: 2, pairsPerGeneration: 2, k: 2, hintPlays: 0, unfinished: true, startedAt: '2025-12-01T10:00:00.000Z' });
    // The manifest can appear before its events: wait for the tree to show the events too.
    const node = await until('the running run in the tree', () => runsProvider.getChildren().find((n) => n.runDir === liveDir && /^running · 2\/2 generations/.test(n.description)));
    assert.match(node.description, /^running · 2\/2 generations/);
    let changes = 0;
    const sub = runsProvider.onDidChangeTreeData(() => changes++);
    // The writer appends a finish line: the watcher must pick up just those bytes and the tree must change.
    appendFileSync(join(liveDir, 'events.jsonl'), `${JSON.stringify({ seq: 10_000, at: new Date().toISOString(), type: 'run.finished', status: 'stopped' })}\n`);
    const stopped = await until('the run to show as stopped', () => runsProvider.getChildren().find((n) => n.runDir === liveDir && n.description.startsWith('stopped')));
    sub.dispose();
    assert.ok(changes > 0, 'the tree fired a change');
    assert.equal(runsProvider.getTreeItem(stopped).contextValue, 'coevolve.run.stopped');
  });

  it('registers every editor command', async function () {
    await api();
    const pkg = vscode.extensions.getExtension(extensionId)?.packageJSON as { contributes: { commands: { command: string }[] } };
    const all = await vscode.commands.getCommands(true);
    const ours = pkg.contributes.commands.map((c) => c.command);
    for (const id of ['coevolve.openRollout', 'coevolve.openRolloutAtFirstError', 'coevolve.openRolloutFile', 'coevolve.rerunRollout', 'coevolve.replayRollout',
      'coevolve.openDashboard', 'coevolve.compareRuns', 'coevolve.revealRunFolder', 'coevolve.startRun', 'coevolve.stopRun', 'coevolve.resumeRun',
      'coevolve.setApiKey', 'coevolve.clearApiKeys', 'coevolve.runs.refresh', 'coevolve.runs.filter', 'coevolve.runs.sort', 'coevolve.runs.clearFilter']) {
      assert.ok(ours.includes(id), `${id} is contributed`);
      assert.ok(all.includes(id), `${id} is registered`);
    }
  });

  it('gates running on workspace trust and local disks (enablement and the command itself)', async function () {
    await api();
    const pkg = vscode.extensions.getExtension(extensionId)?.packageJSON as { contributes: { commands: { command: string; enablement?: string }[] }; capabilities: { untrustedWorkspaces: { supported: string } } };
    assert.equal(pkg.capabilities.untrustedWorkspaces.supported, 'limited');
    for (const id of ['coevolve.startRun', 'coevolve.resumeRun', 'coevolve.rerunRollout']) {
      const c = pkg.contributes.commands.find((x) => x.command === id);
      assert.match(c?.enablement ?? '', /isWorkspaceTrusted && !virtualWorkspace/, `${id} is disabled in untrusted and virtual workspaces`);
    }
    // This host runs with trust on; the command's own check is what an untrusted window would hit first.
    assert.equal(vscode.workspace.isTrusted, true);
  });

  it('filters and sorts the tree through its commands', async function () {
    const { runsProvider } = await api();
    const run = runsProvider.getChildren().find((n) => n.runDir === runDir) as RunTreeNode;
    await vscode.commands.executeCommand('coevolve.runs.filter', { failedEveryTrial: true });
    const gens = runsProvider.getChildren(run);
    assert.ok(gens.length > 0);
    for (const g of gens) assert.match(g.description, /\d+\/3 pairs/);
    await vscode.commands.executeCommand('coevolve.runs.sort', 'reward');
    assert.equal(runsProvider.treeView.sort, 'reward');
    await vscode.commands.executeCommand('coevolve.runs.clearFilter');
    assert.deepEqual(runsProvider.treeView, { filter: {}, sort: 'default' });
  });

  it('opens a rollout panel (one per rollout) that answers protocol requests', async function () {
    const { editor, runsProvider } = await api();
    const run = runsProvider.getChildren().find((n) => n.runDir === runDir) as RunTreeNode;
    const rollout = runsProvider.getChildren(runsProvider.getChildren(runsProvider.getChildren(run)[0])[0])[0] as Extract<RunTreeNode, { kind: 'rollout' }>;
    const panel = (await vscode.commands.executeCommand('coevolve.openRollout', rollout)) as vscode.WebviewPanel;
    assert.equal(panel.viewType, 'coevolve.rollout');
    assert.match(panel.webview.html, /Content-Security-Policy/);
    assert.match(panel.webview.html, /script-src 'nonce-[A-Za-z0-9]+'/);
    assert.doesNotMatch(panel.webview.html, /unsafe-inline|unsafe-eval/);
    const again = (await vscode.commands.executeCommand('coevolve.openRollout', rollout)) as vscode.WebviewPanel;
    assert.equal(again, panel, 'reopening reuses the panel');
    // The tab model follows the panel asynchronously.
    await until('a webview tab for the rollout', () => vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith('coevolve.rollout')));
    const ref = { runDir, generation: rollout.generation, rolloutId: rollout.rolloutId };
    const reply = await editor.rolloutPanels.answer(ref, { kind: 'request', id: 7, method: 'rollout/get', params: ref });
    assert.ok(reply && reply.kind === 'response' && reply.ok, `rollout/get answered: ${JSON.stringify(reply).slice(0, 200)}`);
    const view = (reply as { result: RolloutView }).result;
    assert.equal(view.record?.id, rollout.rolloutId);
    assert.ok(view.env?.text.includes('kind: Environment'));
    // Its tab is named for people once the view is read: generation, task, user and play, not the rollout id.
    assert.match(view.tabTitle ?? '', /^g\d+ .+ × .+ (#\d+|hint)$/);
    assert.equal(panel.title, view.tabTitle);
    // The boundary refuses what the protocol does not define.
    const bad = await editor.rolloutPanels.answer(ref, { kind: 'request', id: 8, method: 'rollout/get', params: { runDir, rolloutId: 3 } });
    assert.ok(bad && bad.kind === 'response' && !bad.ok && /bad params for rollout\/get/.test(bad.error));
    const unknown = await editor.rolloutPanels.answer(ref, { kind: 'request', id: 9, method: 'fs/readAnything', params: {} });
    assert.ok(unknown && unknown.kind === 'response' && !unknown.ok && /unknown request/.test(unknown.error));
    panel.dispose();
  });

  it('opens the dashboard, which answers with stored metrics and lineage', async function () {
    const { editor } = await api();
    const panel = (await vscode.commands.executeCommand('coevolve.openDashboard', runDir)) as vscode.WebviewPanel;
    assert.equal(panel.viewType, 'coevolve.dashboard');
    const reply = await editor.dashboards.answer(runDir, { kind: 'request', id: 1, method: 'dashboard/get', params: { runDir, compareRunDir: liveDir } });
    assert.ok(reply && reply.kind === 'response' && reply.ok);
    const view = (reply as { result: { run: { generations: unknown[] }; lineage: { parent: string | null }[]; compare: { name: string } | null } }).result;
    assert.equal(view.run.generations.length, 3);
    assert.ok(view.lineage.some((n) => n.parent !== null), 'lineage has children');
    assert.equal(view.compare?.name, 'live');
    const compare = (await vscode.commands.executeCommand('coevolve.compareRuns', runDir, liveDir)) as vscode.WebviewPanel;
    assert.equal(compare.viewType, 'coevolve.dashboard');
    compare.dispose();
  });

  it('opens the dashboard beside what the user reads, once per run, and rollouts picked in it beside it at their step', async function () {
    const { editor, runsProvider } = await api();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    // A panel's column is known once the workbench has placed it (ViewColumn.Beside and Active are not columns).
    const columnOf = (panel: vscode.WebviewPanel, what: string): Promise<number> => until(() => `${what} (column now ${String(panel.viewColumn)}, groups ${vscode.window.tabGroups.all.map((g) => `${g.viewColumn}:${g.tabs.map((t) => t.label).join('|')}`).join(', ')})`, () => (panel.viewColumn ?? 0) > 0 && panel.viewColumn, 30_000);
    const dashboardTabs = (): vscode.Tab[] => vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith('coevolve.dashboard'));
    // Nothing open: the dashboard takes the editor area.
    const alone = (await vscode.commands.executeCommand('coevolve.openDashboard', runDir)) as vscode.WebviewPanel;
    assert.equal(await columnOf(alone, 'the dashboard\'s column'), vscode.ViewColumn.One, 'an empty editor area: the first group');
    alone.dispose();
    // The user reads a file of the run (a spec would do the same): the dashboard opens beside it, not over it.
    const manifest = vscode.Uri.file(join(runDir, 'manifest.json'));
    await vscode.window.showTextDocument(manifest, { preview: false, viewColumn: vscode.ViewColumn.One });
    const dash = (await vscode.commands.executeCommand('coevolve.openDashboard', runDir)) as vscode.WebviewPanel;
    assert.equal(await columnOf(dash, 'the dashboard\'s column'), vscode.ViewColumn.Two, 'beside the file being read');
    assert.ok(vscode.window.visibleTextEditors.some((e) => e.document.uri.fsPath === manifest.fsPath), 'the file is still on screen');
    // The same run again: the same panel, no second tab; another run's dashboard joins it in its group.
    assert.equal(await vscode.commands.executeCommand('coevolve.openDashboard', runDir), dash, 'one dashboard per run');
    const secondRun = await makeRun(runsDir, { name: 'second', seed: 4, generations: 1, pairsPerGeneration: 2, k: 2, startedAt: '2025-12-02T10:00:00.000Z' });
    const other = (await vscode.commands.executeCommand('coevolve.openDashboard', secondRun)) as vscode.WebviewPanel;
    assert.equal(await columnOf(other, 'the second dashboard\'s column'), vscode.ViewColumn.Two, 'dashboards share a group');
    await until('two dashboard tabs', () => dashboardTabs().length === 2);
    other.dispose();
    await until('one dashboard tab', () => dashboardTabs().length === 1);
    // A rollout picked in the dashboard (its table and search hits send rollout/open, a hit with its step): beside
    // the dashboard, which stays on screen, at that step; the next one joins the first.
    const run = runsProvider.getChildren().find((n) => n.runDir === runDir) as RunTreeNode;
    const [first, second] = runsProvider.getChildren(runsProvider.getChildren(runsProvider.getChildren(run)[1])[0]) as Extract<RunTreeNode, { kind: 'rollout' }>[];
    assert.ok(first && second);
    const pick = async (r: Extract<RunTreeNode, { kind: 'rollout' }>, step: number): Promise<vscode.WebviewPanel> => {
      dash.reveal(undefined, false);
      await until('the dashboard to be the active editor', () => dash.active);
      await editor.dashboards.answer(runDir, { kind: 'command', method: 'rollout/open', params: { runDir, generation: r.generation, rolloutId: r.rolloutId, step } });
      return until(`the panel of ${r.rolloutId}`, () => editor.rolloutPanels.panels().find((p) => p.ref.rolloutId === r.rolloutId)?.panel);
    };
    const viewer = await pick(first, 2);
    assert.equal(await columnOf(viewer, 'the viewer\'s column'), vscode.ViewColumn.Three, 'beside the dashboard');
    assert.ok(dash.visible, 'the dashboard is still on screen');
    assert.match(viewer.webview.html, /&quot;step&quot;:2[,}]/, 'the viewer opens at the step the dashboard asked for');
    const next = await pick(second, 1);
    assert.equal(await columnOf(next, 'the second viewer\'s column'), viewer.viewColumn, 'rollouts share a group');
    assert.ok(dash.visible, 'the dashboard is still on screen');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('drops a run whose folder is deleted from the tree and the pickers, and its open viewers say it is gone', async function () {
    const { editor, runsProvider } = await api();
    const doomed = await makeRun(runsDir, { name: 'doomed', seed: 9, generations: 1, pairsPerGeneration: 1, k: 1, hintPlays: 0, startedAt: '2025-12-03T10:00:00.000Z' });
    const node = await until('the doomed run in the tree', () => runsProvider.getChildren().find((n) => n.runDir === doomed && n.description.startsWith('completed')));
    const rollout = runsProvider.getChildren(runsProvider.getChildren(runsProvider.getChildren(node)[0])[0])[0] as Extract<RunTreeNode, { kind: 'rollout' }>;
    const ref = { runDir: doomed, generation: rollout.generation, rolloutId: rollout.rolloutId };
    const viewer = (await vscode.commands.executeCommand('coevolve.openRollout', rollout)) as vscode.WebviewPanel;
    const dash = (await vscode.commands.executeCommand('coevolve.openDashboard', doomed)) as vscode.WebviewPanel;
    // What the host tells the panels: each must be told to ask again, and is then answered that its run is gone.
    const told: { panel: string; method: string }[] = [];
    const spy = (panel: string, webview: vscode.Webview) => replaceProperty(webview, 'postMessage', (async (m: { kind?: string; method?: string; params?: { runDir?: string } }) => {
      if (m.kind === 'notification' && m.params?.runDir === doomed) told.push({ panel, method: m.method ?? '' });
      return true;
    }) as vscode.Webview['postMessage']);
    const restore = [spy('viewer', viewer.webview), spy('dashboard', dash.webview)];
    let changes = 0;
    const sub = runsProvider.onDidChangeTreeData(() => changes++);
    try {
      rmSync(doomed, { recursive: true, force: true });
      await until('the tree to redraw without the deleted run', () => changes > 0 && !runsProvider.getChildren().some((n) => n.runDir === doomed));
      assert.ok(!runsProvider.registry.list().some((e) => e.dir === doomed), 'the registry forgot it');
      await until(() => `both panels told (${JSON.stringify(told)})`, () => told.some((t) => t.panel === 'viewer' && t.method === 'rollout/changed') && told.some((t) => t.panel === 'dashboard' && t.method === 'run/changed'));
      const rolloutReply = await editor.rolloutPanels.answer(ref, { kind: 'request', id: 1, method: 'rollout/get', params: ref });
      assert.ok(rolloutReply && rolloutReply.kind === 'response' && !rolloutReply.ok && /is gone: its folder was deleted or moved/.test(rolloutReply.error), `the viewer is told its run is gone: ${JSON.stringify(rolloutReply).slice(0, 300)}`);
      const dashReply = await editor.dashboards.answer(doomed, { kind: 'request', id: 2, method: 'dashboard/get', params: { runDir: doomed } });
      assert.ok(dashReply && dashReply.kind === 'response' && !dashReply.ok && /is gone: its folder was deleted or moved/.test(dashReply.error), `the dashboard is told its run is gone: ${JSON.stringify(dashReply).slice(0, 300)}`);
      // The pickers offer only runs that are there (a second run makes sure there is a picker, whatever ran before).
      const keeper = await makeRun(runsDir, { name: 'keeper', seed: 10, generations: 1, pairsPerGeneration: 1, k: 1, hintPlays: 0, startedAt: '2025-12-04T10:00:00.000Z' });
      const offered: string[] = [];
      restore.push(replaceProperty(vscode.window, 'showQuickPick', (async (items: readonly { detail?: string }[] | Thenable<readonly { detail?: string }[]>) => {
        for (const i of await items) offered.push(i.detail ?? '');
        return undefined;
      }) as typeof vscode.window.showQuickPick));
      await vscode.commands.executeCommand('coevolve.compareRuns', runDir);
      assert.ok(offered.length > 0, 'the picker was shown');
      assert.ok(offered.includes(keeper), `the other run is offered: ${offered.join(', ')}`);
      assert.ok(!offered.includes(doomed), `the deleted run is not offered: ${offered.join(', ')}`);
    } finally {
      sub.dispose();
      for (const r of restore.reverse()) r();
      viewer.dispose();
      dash.dispose();
    }
  });

  it('replays a rollout in a terminal from its recorded steps', async function () {
    const { editor, runsProvider } = await api();
    const run = runsProvider.getChildren().find((n) => n.runDir === runDir) as RunTreeNode;
    const rollout = runsProvider.getChildren(runsProvider.getChildren(runsProvider.getChildren(run)[0])[0])[0] as Extract<RunTreeNode, { kind: 'rollout' }>;
    const terminal = (await vscode.commands.executeCommand('coevolve.replayRollout', rollout)) as vscode.Terminal;
    assert.equal(terminal.name, `Replay ${rollout.rolloutId}`);
    const replay = editor.replays.find((r) => r.terminal === terminal);
    assert.ok(replay);
    await replay.done;
    terminal.dispose();
  });

  it('stores an API key in secret storage, never in settings', async function () {
    const { editor } = await api();
    assert.equal(await vscode.commands.executeCommand('coevolve.setApiKey', 'local', 'sk-test-123'), true);
    const settings = JSON.stringify(vscode.workspace.getConfiguration('coevolve'));
    assert.doesNotMatch(settings, /sk-test-123/);
    await vscode.commands.executeCommand('coevolve.clearApiKeys');
    assert.ok(editor.runCommands);
  });

  it('opens the rollout file and reveals the run folder', async function () {
    const { runsProvider } = await api();
    const run = runsProvider.getChildren().find((n) => n.runDir === runDir) as RunTreeNode;
    const rollout = runsProvider.getChildren(runsProvider.getChildren(runsProvider.getChildren(run)[0])[0])[0] as Extract<RunTreeNode, { kind: 'rollout' }>;
    await vscode.commands.executeCommand('coevolve.openRolloutFile', rollout);
    assert.match(vscode.window.activeTextEditor?.document.uri.fsPath ?? '', new RegExp(`${rollout.rolloutId}\\.json$`));
    await vscode.commands.executeCommand('coevolve.revealRunFolder', run);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('re-runs a rollout through the CLI from its recorded config', async function () {
    this.timeout(120_000);
    const { editor } = await api();
    // The fixture's environments are not runnable task families; the real check is that the CLI was reached and
    // answered with a result or an actionable error, and that the run's own rollouts were not touched.
    const rollout = [...(await api()).editor.rolloutPanels.panels()][0];
    assert.equal(rollout, undefined, 'panels were closed');
    const before = readFileSync(join(runDir, 'events.jsonl'), 'utf8');
    const out = await editor.runCommands.rerun({ runDir, rolloutId: 'g0p0-t0' });
    if (out) assert.ok(existsSync(out), 'the re-run record was written under artifacts/reruns');
    assert.equal(readFileSync(join(runDir, 'events.jsonl'), 'utf8'), before, 'a re-run never writes into the run');
  });
});
