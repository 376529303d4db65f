import { existsSync } from 'node:fs';
import * as vscode from 'vscode';
import { runLayout } from '../../store/layout.js';
import { readRollout } from '../../store/runReader.js';
import { DashboardPanels } from '../dashboard/dashboardPanels.js';
import type { RunsTreeProvider } from '../runs/runsTreeProvider.js';
import type { RunTreeNode } from '../runs/runTreeModel.js';
import { RolloutPanels } from '../viewer/rolloutPanels.js';
import { commandRegistrar, type RegisterCommand } from '../commandRegistrar.js';
import type { RolloutRef } from '../../webview/protocol.js';
import { replayPty } from './replayTerminal.js';
import { RunCommands } from './runCommands.js';
import { pickLiveRun, pickRolloutOf, pickSecondRun } from './runPickers.js';
import { registerRunsTreeCommands } from './runsTreeCommands.js';
import { ViewData } from '../../viewdata/viewRequests.js';
import type { RunRegistry } from '../../viewdata/runRegistry.js';

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
  const pickRun = (placeHolder: string): Promise<string | undefined> => pickLiveRun(registry, placeHolder);
  const pickRollout = (): Promise<RolloutRef | undefined> => pickRolloutOf(registry, pickRun);
  const openFile = async (path: string): Promise<void> => void (await vscode.window.showTextDocument(vscode.Uri.file(path), { preview: true }));
  const runCommands = new RunCommands({ context, registry, log, pickRun });
  const replay = (arg: RolloutArg): Promise<vscode.Terminal | undefined> => replayInTerminal(arg, pickRollout, replays);
  // One data layer for every panel, so the table rows and the transcript index of a run are built once.
  const viewData = new ViewData(registry);
  const rolloutPanels = new RolloutPanels(context.extensionUri, registry, {
    rerun: (ref) => void runCommands.rerun(ref),
    replay: (ref) => void replay(ref),
    openFile,
    curate: (ref, action) => vscode.commands.executeCommand(`coevolve.curation.${action}`, ref.runDir, ref.rolloutId),
  }, log, viewData);
  const dashboards = new DashboardPanels(context.extensionUri, registry, (ref, step, from) => void rolloutPanels.show(ref, step, from), log, viewData);

  const register = commandRegistrar(context);
  context.subscriptions.push(rolloutPanels, dashboards);
  const editor: Editor = { registry, rolloutPanels, dashboards, runCommands, pickRun, pickRollout, replay, openFile };
  registerRolloutCommands(register, editor);
  registerRunCommands(register, editor);
  registerRunsTreeCommands(register, tree);
  return { rolloutPanels, dashboards, runCommands, replays };
}

/** What the command handlers act through. */
interface Editor {
  registry: RunRegistry;
  rolloutPanels: RolloutPanels;
  dashboards: DashboardPanels;
  runCommands: RunCommands;
  pickRun(placeHolder: string): Promise<string | undefined>;
  pickRollout(): Promise<RolloutRef | undefined>;
  replay(arg: RolloutArg): Promise<vscode.Terminal | undefined>;
  openFile(path: string): Promise<void>;
}

/** "Replay in Terminal": the rollout's record printed in a pseudo-terminal, kept in `replays` for the tests. */
async function replayInTerminal(arg: RolloutArg, pickRollout: () => Promise<RolloutRef | undefined>, replays: EditorApi['replays']): Promise<vscode.Terminal | undefined> {
  const ref = refOf(arg) ?? (await pickRollout());
  if (!ref) return undefined;
  const record = readRollout(ref.runDir, { generation: ref.generation, id: ref.rolloutId });
  const pty = replayPty(record, 1);
  const terminal = vscode.window.createTerminal({ name: `Replay ${ref.rolloutId}`, pty, iconPath: new vscode.ThemeIcon('debug-console') });
  terminal.show();
  replays.push({ terminal, done: pty.done });
  return terminal;
}

/** The commands on one rollout (the argument's, else a picked one): open, open at the first error, open the file, re-run, replay. */
function registerRolloutCommands(register: RegisterCommand, editor: Editor): void {
  const { registry, rolloutPanels, dashboards, runCommands, pickRollout, openFile, replay } = editor;
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
}

/** The commands on a run: dashboard, comparison, its folder, start/stop/resume, and the API keys runs use. */
function registerRunCommands(register: RegisterCommand, editor: Editor): void {
  const { registry, dashboards, runCommands, pickRun } = editor;
  register('coevolve.openDashboard', async (arg?: RunTreeNode | string) => {
    const runDir = typeof arg === 'string' ? arg : arg?.runDir ?? (await pickRun('Run to show'));
    return runDir ? dashboards.show(runDir) : undefined;
  });
  register('coevolve.compareRuns', async (arg?: RunTreeNode | string, other?: string) => {
    const runDir = typeof arg === 'string' ? arg : arg?.runDir ?? (await pickRun('First run'));
    if (!runDir) return undefined;
    const second = other ?? (await pickSecondRun(registry, runDir));
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
}
