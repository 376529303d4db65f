import * as vscode from 'vscode';
import { runsOutputDirs } from '../settings.js';
import { RunRegistry } from '../../viewdata/runRegistry.js';
import { RunsTreeProvider } from './runsTreeProvider.js';
import { watchRuns } from './runWatcher.js';

/** The Runs view: runs found under `coevolve.runsFolder` of each workspace folder, refreshed live as they grow. */
export function activateRunsView(context: vscode.ExtensionContext): RunsTreeProvider {
  const registry = new RunRegistry(runsOutputDirs);
  const provider = new RunsTreeProvider(registry);
  const view = vscode.window.createTreeView('coevolve.runs', { treeDataProvider: provider, showCollapseAll: true });
  const describe = (): void => {
    view.description = provider.describeView() || undefined;
  };
  context.subscriptions.push(provider, view, watchRuns(registry), provider.onDidChangeTreeData(describe));
  return provider;
}
