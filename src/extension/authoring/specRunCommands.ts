// Commands behind the CodeLens and the Environments view's inline actions: Validate (through the Testing API, so
// the result shows in the gutter and Test Explorer too) and Start run (the Runs engineer's command when present,
// else the CLI in a terminal).
import { join } from 'node:path';
import * as vscode from 'vscode';
import { authoringCommands } from './specCodeLens.js';
import type { EnvironmentTests, TestOutcome } from './environmentTests.js';
import { runRefusal } from './sandboxSession.js';
import type { RegisterCommand } from '../commandRegistrar.js';

/** The spec a command is about: its argument (a URI or a tree node with one), else the active editor's file. */
export function targetUri(arg: unknown): vscode.Uri | undefined {
  if (arg instanceof vscode.Uri) return arg;
  if (arg && typeof arg === 'object') {
    const o = arg as { resourceUri?: unknown; file?: unknown; uri?: unknown };
    if (o.resourceUri instanceof vscode.Uri) return o.resourceUri;
    if (o.uri instanceof vscode.Uri) return o.uri;
    if (typeof o.file === 'string') return vscode.Uri.file(o.file);
  }
  return vscode.window.activeTextEditor?.document.uri;
}

export function registerSpecRunCommands(register: RegisterCommand, tests: EnvironmentTests, extensionPath: string): void {
  register(authoringCommands.validate, async (arg?: unknown): Promise<TestOutcome | undefined> => {
    const uri = targetUri(arg);
    if (!uri) return undefined;
    const refusal = runRefusal();
    if (refusal) {
      void vscode.window.showWarningMessage(`Coevolve: ${refusal}`);
      return undefined;
    }
    const name = vscode.workspace.asRelativePath(uri, false);
    const results = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Coevolve: validating ${name} in a sandbox`, cancellable: true },
      (_progress, token) => tests.run([uri], token),
    );
    const outcome = results.get(uri.toString());
    if (outcome === 'passed') void vscode.window.showInformationMessage(`Coevolve: ${name}: the oracle passes and an empty agent fails.`);
    else if (outcome) {
      void vscode.window.showErrorMessage(`Coevolve: ${name}: validation ${outcome}. The Test Results panel has the output.`, 'Show Output').then((c) => {
        if (c) void vscode.commands.executeCommand('testing.showMostRecentOutput');
      });
    }
    return outcome;
  });
  register(authoringCommands.startRun, async (arg?: unknown): Promise<void> => {
    const uri = targetUri(arg);
    if (!uri) return;
    const refusal = runRefusal();
    if (refusal) {
      void vscode.window.showWarningMessage(`Coevolve: ${refusal}`);
      return;
    }
    const commands = await vscode.commands.getCommands(true);
    if (commands.includes('coevolve.startRun')) {
      await vscode.commands.executeCommand('coevolve.startRun', uri);
      return;
    }
    const cli = join(extensionPath, 'dist', 'cli.js');
    const terminal = vscode.window.createTerminal({ name: 'Coevolve run', cwd: vscode.Uri.joinPath(uri, '..') });
    terminal.show();
    // In desktop VS Code the host's own binary is Electron, not Node; the terminal's `node` is then the one to use.
    const node = process.versions.electron ? 'node' : quote(process.execPath);
    terminal.sendText(`${node} ${quote(cli)} run ${quote(uri.fsPath)}`);
  });
}

function quote(s: string): string {
  return /^[A-Za-z0-9_./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
