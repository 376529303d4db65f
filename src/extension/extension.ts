import * as vscode from 'vscode';

export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel('Coevolve', { log: true });
  context.subscriptions.push(log);
  log.info('Coevolve activated');
}

export function deactivate(): void {}
