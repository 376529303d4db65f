import * as vscode from 'vscode';
import { commandRegistrar } from '../commandRegistrar.js';

/** The extension's one log channel (a LogOutputChannel, so users pick the level in the Output view) and its command. */
export function activateLog(context: vscode.ExtensionContext): vscode.LogOutputChannel {
  const log = vscode.window.createOutputChannel('Coevolve', { log: true });
  context.subscriptions.push(log);
  commandRegistrar(context)('coevolve.showLog', () => log.show(true));
  return log;
}
