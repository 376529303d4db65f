// Authoring: everything that helps write specs by hand (live diagnostics, completion, hover, quick fixes) and run
// them from the editor (CodeLens, the Testing API, the Environments view, New environment / New user).
import type * as vscode from 'vscode';
import { commandRegistrar } from '../commandRegistrar.js';
import { activateEnvironmentsView, type EnvironmentsTreeProvider } from './environmentsView.js';
import { activateEnvironmentTests, type EnvironmentTests } from './environmentTests.js';
import { activateLiveDiagnostics, type LiveSpecs } from './liveDiagnostics.js';
import { registerNewSpecCommands } from './newSpecCommands.js';
import { registerPlayEvolveCommands } from './playEvolveCommands.js';
import { activateSpecCodeLens } from './specCodeLens.js';
import { activateSpecLanguageFeatures } from './specLanguageFeatures.js';
import { registerSpecRunCommands } from './specRunCommands.js';

export interface Authoring {
  live: LiveSpecs;
  tests: EnvironmentTests;
  environments: EnvironmentsTreeProvider;
}

export function activateAuthoring(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, diagnostics: vscode.DiagnosticCollection): Authoring {
  const live = activateLiveDiagnostics(context, log, diagnostics);
  activateSpecLanguageFeatures(context, live);
  const tests = activateEnvironmentTests(context, live, log);
  activateSpecCodeLens(context, tests);
  const register = commandRegistrar(context);
  registerSpecRunCommands(register, tests, context.extensionPath);
  registerNewSpecCommands(register);
  registerPlayEvolveCommands(register, log);
  const environments = activateEnvironmentsView(context, live, tests);
  return { live, tests, environments };
}
