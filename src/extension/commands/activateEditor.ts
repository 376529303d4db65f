import { existsSync } from 'node:fs';
import * as vscode from 'vscode';
import { runLayout } from '../../store/layout.js';
import { readRollout } from '../../store/runReader.js';
import { DashboardPanels } from '../dashboard/dashboardPanels.js';
import type { RunsTreeProvider } from '../runs/runsTreeProvider.js';
import { filterChoices, type RunTreeNode, type SortKey, type TreeView } from '../runs/runTreeModel.js';
import { RolloutPanels } from '../viewer/rolloutPanels.js';
import type { RolloutRef } from '../../webview/protocol.js';
import { replayPty } from './replayTerminal.js';
import { RunCommands } from './runCommands.js';
import { ViewData } from '../../viewdata/viewRequests.js';

/** What the vscode test suites reach through the extension's API. */
export interface EditorApi {
  rolloutPanels: RolloutPanels;
  dashboards: DashboardPanels;
  runCommands: RunCommands;
  /** Terminals opened by "Replay in Terminal", with a promise that settles when the replay has printed everything. */
  replays: { terminal: vscode.Terminal; done: Promise<void> }[];
}

type RolloutArg = RunTreeNode | RolloutRef | undefined;

function refOf(arg: RolloutArg): RolloutRef | undefined {
  if (!arg) return undefined;
  if ('kind' in arg) return arg.kind === 'rollout' ? { runDir: arg.runDir, generation: arg.generation, rolloutId: arg.rolloutId } : undefined;
  return arg;
}

/**
 * The editor side of runs: rollout viewer and dashboard panels (with their serializers), and every run command
 * (open, re-run, replay, start/stop/resume, API keys, tree filters and sorting). One registration per command,
 * all pushed into context.subscriptions.
 */
export function activateEditor(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, tree: RunsTreeProvider): EditorApi {
  const registry = tree.registry;
  const replays: EditorApi['replays'] = [];
  const pickRun = async (placeHolder: string): Promise<string | undefined> => {
    const runs = registry.list().filter((e) => e.live);
    if (runs.length === 1) return runs[0]?.dir;
    const pick = await vscode.window.showQuickPick(runs.map((e) => ({ label: e.live?.manifest.name ?? e.dir, description: `${e.live?.run.status} · ${e.live?.manifest.startedAt.slice(0, 16).replace('T', ' ')}`, detail: e.dir, dir: e.dir })), { placeHolder });
    return pick?.dir;
  };
  const pickRollout = async (): Promise<RolloutRef | undefined> => {
    const runDir = await pickRun('Run of the rollout');
    if (!runDir) return undefined;
    const rs = [...registry.get(runDir).run.rollouts.values()];
    const pick = await vscode.window.showQuickPick(rs.map((r) => ({ label: r.id, description: `${r.success ? 'passed' : 'failed'} · reward ${r.reward.toFixed(2)} · ${r.envId} × ${r.userId}`, r })), { placeHolder: 'Rollout to open', matchOnDescription: true });
    return pick ? { runDir, generation: pick.r.generation, rolloutId: pick.r.id } : undefined;
  };
  const openFile = async (path: string): Promise<void> => void (await vscode.window.showTextDocument(vscode.Uri.file(path), { preview: true }));
  const runCommands = new RunCommands({ context, registry, log, pickRun });
  const replay = async (arg: RolloutArg): Promise<vscode.Terminal | undefined> => {
    const ref = refOf(arg) ?? (await pickRollout());
    if (!ref) return undefined;
    const record = readRollout(ref.runDir, { generation: ref.generation, id: ref.rolloutId });
    const pty = replayPty(record, 1);
    const terminal = vscode.window.createTerminal({ name: `Replay ${ref.rolloutId}`, pty, iconPath: new vscode.ThemeIcon('debug-console') });
    terminal.show();
    replays.push({ terminal, done: pty.done });
    return terminal;
  };
  // One data layer for every panel, so the table rows and the transcript index of a run are built once.
  const viewData = new ViewData(registry);
  const rolloutPanels = new RolloutPanels(context.extensionUri, registry, {
    rerun: (ref) => void runCommands.rerun(ref),
    replay: (ref) => void replay(ref),
    openFile,
    curate: (ref, action) => vscode.commands.executeCommand(`coevolve.curation.${action}`, ref.runDir, ref.rolloutId),
  }, log, viewData);
  const dashboards = new DashboardPanels(context.extensionUri, registry, (ref, step, from) => void rolloutPanels.show(ref, step, from), log, viewData);
  const setView = (change: Partial<TreeView>): void => tree.setView({ ...tree.treeView, ...change, filter: { ...tree.treeView.filter, ...change.filter } });

  const register = (id: string, fn: (...args: never[]) => unknown): void => void context.subscriptions.push(vscode.commands.registerCommand(id, fn));
  context.subscriptions.push(rolloutPanels, dashboards);

  register('coevolve.openRollout', async (arg?: RolloutArg, step?: number) => {
    const ref = refOf(arg) ?? (await pickRollout());
    return ref ? rolloutPanels.show(ref, step, dashboards.active()) : undefined;
  });
  register('coevolve.openRolloutAtFirstError', async (arg?: RolloutArg) => {
    const ref = refOf(arg) ?? (await pickRollout());
    if (!ref) return undefined;
    const first = registry.get(ref.runDir).run.rollouts.get(ref.rolloutId)?.firstErrorStep;
    return rolloutPanels.show(ref, first, dashboards.active());
  });
  register('coevolve.openRolloutFile', async (arg?: RolloutArg) => {
    const ref = refOf(arg) ?? (await pickRollout());
    if (ref) await openFile(runLayout.rollout(ref.runDir, ref.generation, ref.rolloutId));
  });
  register('coevolve.rerunRollout', async (arg?: RolloutArg) => {
    const ref = refOf(arg) ?? (await pickRollout());
    return ref ? runCommands.rerun(ref) : undefined;
  });
  register('coevolve.replayRollout', (arg?: RolloutArg) => replay(arg));
  register('coevolve.openDashboard', async (arg?: RunTreeNode | string) => {
    const runDir = typeof arg === 'string' ? arg : arg?.runDir ?? (await pickRun('Run to show'));
    return runDir ? dashboards.show(runDir) : undefined;
  });
  register('coevolve.compareRuns', async (arg?: RunTreeNode | string, other?: string) => {
    const runDir = typeof arg === 'string' ? arg : arg?.runDir ?? (await pickRun('First run'));
    if (!runDir) return undefined;
    const second = other ?? (await vscode.window.showQuickPick(registry.list().filter((e) => e.live && e.dir !== runDir).map((e) => ({ label: e.live?.manifest.name ?? e.dir, description: e.dir, dir: e.dir })), { placeHolder: 'Run to compare with' }))?.dir;
    return second ? dashboards.show(runDir, second) : undefined;
  });
  register('coevolve.revealRunFolder', async (arg?: RunTreeNode) => {
    const runDir = arg?.runDir ?? (await pickRun('Run folder to reveal'));
    if (!runDir) return;
    const target = arg?.kind === 'rollout' ? runLayout.rollout(runDir, arg.generation, arg.rolloutId) : runLayout.manifest(runDir);
    if (existsSync(target)) await vscode.commands.executeCommand('revealInExplorer', vscode.Uri.file(target));
  });
  register('coevolve.startRun', (file?: vscode.Uri) => runCommands.start(file));
  register('coevolve.stopRun', (node?: RunTreeNode) => runCommands.stop(node));
  register('coevolve.resumeRun', (node?: RunTreeNode) => runCommands.resume(node));
  register('coevolve.setApiKey', (endpoint?: string, key?: string) => runCommands.setApiKey(endpoint, key));
  register('coevolve.clearApiKeys', () => runCommands.clearApiKeys());
  register('coevolve.runs.refresh', () => tree.refresh());
  register('coevolve.runs.sort', async (key?: SortKey) => {
    const pick = key ?? (await vscode.window.showQuickPick(
      [{ label: 'default', description: 'as played' }, { label: 'reward', description: 'highest first' }, { label: 'duration', description: 'longest first' }, { label: 'cost', description: 'most expensive first' }],
      { placeHolder: `Sort pairs and rollouts (now: ${tree.treeView.sort})` },
    ))?.label as SortKey | undefined;
    if (pick) setView({ sort: pick });
  });
  register('coevolve.runs.filter', async (filter?: TreeView['filter']) => {
    if (filter) return setView({ filter });
    const live = registry.list().flatMap((e) => (e.live ? [e.live] : []));
    const tags = new Set<string>();
    const families = new Set<string>();
    for (const l of live) {
      const c = filterChoices(l);
      c.tags.forEach((t) => tags.add(t));
      c.families.forEach((f) => families.add(f));
    }
    const f = tree.treeView.filter;
    const items: (vscode.QuickPickItem & { apply: TreeView['filter'] })[] = [
      { label: 'Failed only', description: 'rollouts that did not succeed', picked: !!f.failedOnly, apply: { failedOnly: true } },
      { label: 'Failed in every rollout', description: 'pairs with no passing no-hint rollout', picked: !!f.failedEveryTrial, apply: { failedEveryTrial: true } },
      { label: 'In band', description: 'pairs inside the target success band', picked: !!f.inBand, apply: { inBand: true } },
      ...[...tags].sort().map((t) => ({ label: `Tag: ${t}`, picked: f.tag === t, apply: { tag: t } })),
      ...[...families].sort().map((x) => ({ label: `Family: ${x}`, picked: f.family === x, apply: { family: x } })),
    ];
    const picks = await vscode.window.showQuickPick(items, { canPickMany: true, placeHolder: 'Show only… (none = everything)' });
    if (!picks) return;
    const next: TreeView['filter'] = {};
    for (const p of picks) Object.assign(next, p.apply);
    tree.setView({ ...tree.treeView, filter: next });
  });
  register('coevolve.runs.clearFilter', () => tree.setView({ filter: {}, sort: 'default' }));
  return { rolloutPanels, dashboards, runCommands, replays };
}
