// The extension host entry: a linear script of small activateX() steps, each pushing what it creates into
// context.subscriptions so deactivation cleans up by itself.
import type * as vscode from 'vscode';
import { toolVersion } from '../core/version.js';
import type { CoevolveApi } from './api.js';
import { activateLog } from './log/activateLog.js';
import { activateRunsView } from './runs/activateRunsView.js';
import { activateEditor } from './commands/activateEditor.js';
import { activateSpecValidation } from './specs/activateSpecValidation.js';
import { activateAuthoring } from './authoring/activateAuthoring.js';
import { activateDatasets } from './datasets/activateDatasets.js';
import { activateGettingStarted } from './start/activateGettingStarted.js';

export function activate(context: vscode.ExtensionContext): CoevolveApi {
  const log = activateLog(context);
  const runsProvider = activateRunsView(context);
  const editor = activateEditor(context, log, runsProvider);
  const diagnostics = activateSpecValidation(context, log);
  const authoring = activateAuthoring(context, log, diagnostics);
  const datasets = activateDatasets(context, log, () => editor.rolloutPanels.active());
  const start = activateGettingStarted(context, log, editor.runCommands);
  log.info(`Coevolve ${toolVersion} activated`);
  return { version: toolVersion, runsProvider, diagnostics, log, authoring, datasets, editor, start };
}

export function deactivate(): void {}
