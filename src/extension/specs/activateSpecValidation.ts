import * as vscode from 'vscode';
import { commandRegistrar } from '../commandRegistrar.js';
import { describeSummary, validateWorkspaceSpecs, type SpecValidationSummary } from './validateWorkspaceSpecs.js';

/**
 * `Coevolve: Validate Workspace Specs`. It only reads files, so it is allowed in untrusted workspaces. The command
 * resolves with the summary (tests use it); the message is not awaited, since it stays until the user closes it.
 */
export function activateSpecValidation(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): vscode.DiagnosticCollection {
  const diagnostics = vscode.languages.createDiagnosticCollection('coevolve');
  context.subscriptions.push(diagnostics);
  const register = commandRegistrar(context);
  register('coevolve.validateWorkspace', (): Thenable<SpecValidationSummary> =>
    vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: 'Coevolve: validating specs', cancellable: false },
      async () => {
        const summary = await validateWorkspaceSpecs(diagnostics, log);
        const message = describeSummary(summary);
        if (summary.errors + summary.warnings === 0) {
          void vscode.window.showInformationMessage(message);
        } else {
          void vscode.window.showWarningMessage(message, 'Show Problems').then((choice) => {
            if (choice) void vscode.commands.executeCommand('workbench.actions.view.problems');
          });
        }
        return summary;
      },
    ),
  );
  return diagnostics;
}
