import type * as vscode from 'vscode';
import type { Authoring } from './authoring/activateAuthoring.js';
import type { Datasets } from './datasets/activateDatasets.js';
import type { EditorApi } from './commands/activateEditor.js';
import type { RunsTreeProvider } from './runs/runsTreeProvider.js';
import type { GettingStarted } from './start/activateGettingStarted.js';

/**
 * What `activate` returns. The vscode test suites reach the extension's parts through it; it is not a public API
 * for other extensions.
 */
export interface CoevolveApi {
  version: string;
  runsProvider: RunsTreeProvider;
  diagnostics: vscode.DiagnosticCollection;
  log: vscode.LogOutputChannel;
  /** Live spec validation, the environment tests and the Environments view. */
  authoring: Authoring;
  /** The Dataset view and curation commands. */
  datasets: Datasets;
  /** Rollout viewer and dashboard panels, run commands, replays. */
  editor: EditorApi;
  /** Set up the workspace, run the demo, the walkthrough. */
  start: GettingStarted;
}
