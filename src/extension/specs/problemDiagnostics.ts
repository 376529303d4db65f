import * as vscode from 'vscode';
import { formatPath, type Problem } from '../../core/spec/problems.js';

/** The thin adapter from core problems (plain data, 1-based, end exclusive) to editor diagnostics (0-based). */
export function toDiagnostic(problem: Problem): vscode.Diagnostic {
  const start = new vscode.Position(Math.max(0, problem.line - 1), Math.max(0, problem.column - 1));
  const end = new vscode.Position(Math.max(0, problem.endLine - 1), Math.max(0, problem.endColumn - 1));
  const severity = problem.severity === 'error' ? vscode.DiagnosticSeverity.Error : vscode.DiagnosticSeverity.Warning;
  const diagnostic = new vscode.Diagnostic(new vscode.Range(start, end.isBefore(start) ? start : end), problem.message, severity);
  diagnostic.source = 'coevolve';
  // The JSON path shows as the diagnostic's code, so a user sees which field is meant even when the range is a whole block.
  if (problem.path.length > 0) diagnostic.code = formatPath(problem.path);
  return diagnostic;
}
