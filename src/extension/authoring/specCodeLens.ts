// CodeLens above an environment spec (Validate, Play one rollout, Evolve a child) and a run spec (Start run). Lenses
// that run code are shown only in trusted workspaces; the lens line says why when they are hidden.
import * as vscode from 'vscode';
import { kindFromFileName } from '../../core/spec/kinds.js';
import type { EnvironmentTests } from './environmentTests.js';

export const authoringCommands = {
  validate: 'coevolve.validateEnvironment',
  play: 'coevolve.playEnvironment',
  evolve: 'coevolve.evolveEnvironment',
  startRun: 'coevolve.startRunFromSpec',
} as const;

export function activateSpecCodeLens(context: vscode.ExtensionContext, tests: EnvironmentTests): void {
  const changed = new vscode.EventEmitter<void>();
  const provider: vscode.CodeLensProvider = {
    onDidChangeCodeLenses: changed.event,
    provideCodeLenses(document) {
      const kind = kindFromFileName(document.uri.fsPath);
      if (kind !== 'Environment' && kind !== 'Run') return [];
      const range = lensRange(document);
      if (!vscode.workspace.isTrusted) {
        return [new vscode.CodeLens(range, { title: '$(shield) Trust this workspace to validate, play or run specs', command: 'workbench.trust.manage' })];
      }
      const args = [document.uri];
      if (kind === 'Run') return [new vscode.CodeLens(range, { title: '$(run) Start run', command: authoringCommands.startRun, arguments: args })];
      const outcome = tests.lastOutcome(document.uri);
      const validateTitle = outcome === 'passed' ? '$(pass) Validated — validate again' : outcome === 'failed' ? '$(error) Validation failed — validate again' : '$(beaker) Validate';
      return [
        new vscode.CodeLens(range, { title: validateTitle, tooltip: 'Run the oracle (must pass) and an empty agent (must fail) in a sandbox', command: authoringCommands.validate, arguments: args }),
        new vscode.CodeLens(range, { title: '$(play) Play one rollout', tooltip: 'Play one episode with the built-in roles (not an LLM) and open it in the rollout viewer', command: authoringCommands.play, arguments: args }),
        new vscode.CodeLens(range, { title: '$(git-branch) Evolve a child', tooltip: 'One designer step: a harder child, opened beside this spec as a diff', command: authoringCommands.evolve, arguments: args }),
      ];
    },
  };
  context.subscriptions.push(
    changed,
    vscode.languages.registerCodeLensProvider({ scheme: 'file', pattern: '**/*.{env,run}.{yaml,yml}' }, provider),
    vscode.workspace.onDidGrantWorkspaceTrust(() => changed.fire()),
    tests.onDidFinish(() => changed.fire()),
  );
}

/** The first line that is not a comment or blank: the lenses sit above the spec itself, not above its header comment. */
function lensRange(document: vscode.TextDocument): vscode.Range {
  for (let i = 0; i < Math.min(document.lineCount, 200); i++) {
    const text = document.lineAt(i).text.trim();
    if (text !== '' && !text.startsWith('#')) return new vscode.Range(i, 0, i, 0);
  }
  return new vscode.Range(0, 0, 0, 0);
}
