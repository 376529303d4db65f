// Getting started: set up a workspace with the example specs, run the demo, and the walkthrough that strings them
// together (contributes.walkthroughs). Running needs trust (RunCommands refuses otherwise); setting up only writes
// the example files, so it works anywhere a folder is open.
import { existsSync } from 'node:fs';
import * as vscode from 'vscode';
import { runInit } from '../../cli/commands/init.js';
import { commandRegistrar } from '../commandRegistrar.js';
import type { RunCommands } from '../commands/runCommands.js';

export interface GettingStarted {
  /** The run config "Run the Demo" starts: the workspace's copy if set up, else the extension's own. */
  demoConfig(): vscode.Uri;
}

function workspaceFolder(): vscode.WorkspaceFolder | undefined {
  return vscode.workspace.workspaceFolders?.[0];
}

export function activateGettingStarted(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, runs: RunCommands): GettingStarted {
  const shipped = vscode.Uri.joinPath(context.extensionUri, 'environments');
  const demoConfig = (): vscode.Uri => {
    const folder = workspaceFolder();
    const local = folder ? vscode.Uri.joinPath(folder.uri, 'environments', 'demo.run.yaml') : undefined;
    return local && existsSync(local.fsPath) ? local : vscode.Uri.joinPath(shipped, 'demo.run.yaml');
  };

  const init = async (): Promise<vscode.Uri | undefined> => {
    const folder = workspaceFolder();
    if (!folder || folder.uri.scheme !== 'file') {
      void vscode.window.showErrorMessage('Coevolve: open a folder first (File › Open Folder…); the example specs are written into it.');
      return undefined;
    }
    let text = '';
    try {
      runInit(folder.uri.fsPath, { out: (t) => (text += t), cwd: folder.uri.fsPath }, shipped.fsPath);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (!/exist already/.test(message)) throw err;
      log.info(`init: ${message}`);
      void vscode.window.showInformationMessage('Coevolve: this workspace is set up already (environments/ holds the example specs).', 'Run the Demo').then((a) => a && vscode.commands.executeCommand('coevolve.runDemo'));
      return vscode.Uri.joinPath(folder.uri, 'environments');
    }
    log.info(text.trim());
    const demo = vscode.Uri.joinPath(folder.uri, 'environments', 'demo.run.yaml');
    // Started from the walkthrough (or another non-text editor): open the config beside it, so the walkthrough's
    // next step stays on screen; a preview in its place would close the walkthrough's (preview) tab.
    const active = vscode.window.tabGroups.activeTabGroup.activeTab;
    const beside = active !== undefined && !(active.input instanceof vscode.TabInputText);
    await vscode.window.showTextDocument(demo, beside ? { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true, preview: false } : { preview: true });
    void vscode.window.showInformationMessage('Coevolve: example environments, users and run configs written to environments/. The demo run config is open.', 'Run the Demo').then((a) => a && vscode.commands.executeCommand('coevolve.runDemo'));
    return vscode.Uri.joinPath(folder.uri, 'environments');
  };

  const register = commandRegistrar(context);
  register('coevolve.init', async () => {
    try {
      return await init();
    } catch (err) {
      void vscode.window.showErrorMessage(`Coevolve: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    }
  });
  register('coevolve.runDemo', () => runs.start(demoConfig()));
  register('coevolve.openWalkthrough', () => vscode.commands.executeCommand('workbench.action.openWalkthrough', 'coevolve.coevolve#getStarted', false));
  return { demoConfig };
}

