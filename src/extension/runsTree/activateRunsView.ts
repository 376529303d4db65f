import * as vscode from 'vscode';
import { RunsTreeProvider } from './runsTreeProvider.js';

export function activateRunsView(context: vscode.ExtensionContext): RunsTreeProvider {
  const provider = new RunsTreeProvider();
  const view = vscode.window.createTreeView('coevolve.runs', { treeDataProvider: provider, showCollapseAll: true });
  context.subscriptions.push(provider, view);
  return provider;
}
