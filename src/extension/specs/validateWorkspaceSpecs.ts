import * as vscode from 'vscode';
import { parseSpecText } from '../../core/spec/parse.js';
import { toDiagnostic } from './problemDiagnostics.js';
import { excludedFolders, specFileGlob } from './specFiles.js';

let workspaceValidator: ((token?: vscode.CancellationToken) => Promise<SpecValidationSummary>) | undefined;

/** Hands the command over to live validation, so the command and the diagnostics as you type never disagree. */
export function takeOverWorkspaceValidation(validate: (token?: vscode.CancellationToken) => Promise<SpecValidationSummary>): vscode.Disposable {
  workspaceValidator = validate;
  return { dispose: () => { if (workspaceValidator === validate) workspaceValidator = undefined; } };
}

export interface SpecValidationSummary {
  files: number;
  filesWithProblems: number;
  errors: number;
  warnings: number;
}

/**
 * Reads every spec file through `workspace.fs` (so it works on remote and virtual workspaces too), runs the core
 * validator and replaces the collection's diagnostics with the result.
 */
export async function validateWorkspaceSpecs(
  diagnostics: vscode.DiagnosticCollection,
  log: vscode.LogOutputChannel,
  token?: vscode.CancellationToken,
): Promise<SpecValidationSummary> {
  // Live validation (authoring), once active, owns the collection: it also checks rules across files and open editors' text.
  if (workspaceValidator) return workspaceValidator(token);
  const uris = await vscode.workspace.findFiles(specFileGlob, excludedFolders, undefined, token);
  const summary: SpecValidationSummary = { files: 0, filesWithProblems: 0, errors: 0, warnings: 0 };
  const decoder = new TextDecoder('utf-8');
  const results: [vscode.Uri, vscode.Diagnostic[]][] = [];
  for (const uri of uris.sort((a, b) => a.toString().localeCompare(b.toString()))) {
    if (token?.isCancellationRequested) break;
    const file = vscode.workspace.asRelativePath(uri, false);
    let text: string;
    try {
      text = decoder.decode(await vscode.workspace.fs.readFile(uri));
    } catch (err) {
      log.warn(`cannot read ${file}: ${err instanceof Error ? err.message : String(err)}`);
      continue;
    }
    const { problems } = parseSpecText(text, file);
    summary.files++;
    if (problems.length > 0) summary.filesWithProblems++;
    for (const p of problems) {
      if (p.severity === 'error') summary.errors++;
      else summary.warnings++;
      log.info(`${p.file}:${p.line}:${p.column}: ${p.severity}: ${p.message}`);
    }
    results.push([uri, problems.map(toDiagnostic)]);
  }
  diagnostics.clear();
  diagnostics.set(results);
  log.info(`validated ${summary.files} spec file(s): ${summary.errors} error(s), ${summary.warnings} warning(s)`);
  return summary;
}

export function describeSummary(s: SpecValidationSummary): string {
  if (s.files === 0) return 'Coevolve: no spec files (*.env.yaml, *.user.yaml, *.run.yaml, *.agent.yaml) in this workspace.';
  const checked = `${s.files} spec file${s.files === 1 ? '' : 's'}`;
  if (s.errors === 0 && s.warnings === 0) return `Coevolve: ${checked} checked, all valid.`;
  return `Coevolve: ${checked} checked: ${s.errors} error${s.errors === 1 ? '' : 's'}, ${s.warnings} warning${s.warnings === 1 ? '' : 's'} in ${s.filesWithProblems} file${s.filesWithProblems === 1 ? '' : 's'}.`;
}
