// The thin adapters from the pure spec assistance (completion, hover, quick fixes) to VS Code providers.
import * as vscode from 'vscode';
import { fixesFor, type TextEdit0 } from './quickFixes.js';
import { specCompletions } from './specCompletion.js';
import { specHover } from './specHover.js';
import type { LiveSpecs } from './liveDiagnostics.js';
import { specFileGlob } from '../specs/specFiles.js';

/** Spec files by name, whatever language mode the editor gave them (yaml, or plain text without a YAML extension). */
export const specDocumentSelector: vscode.DocumentSelector = [
  { scheme: 'file', pattern: specFileGlob },
  { scheme: 'untitled', language: 'yaml' },
];

export function activateSpecLanguageFeatures(context: vscode.ExtensionContext, live: LiveSpecs): void {
  context.subscriptions.push(
    vscode.languages.registerCompletionItemProvider(specDocumentSelector, { provideCompletionItems }, ':', ' ', '-'),
    vscode.languages.registerHoverProvider(specDocumentSelector, { provideHover }),
    vscode.languages.registerCodeActionsProvider(specDocumentSelector, new SpecQuickFixes(live), {
      providedCodeActionKinds: [vscode.CodeActionKind.QuickFix],
    }),
  );
}

function provideCompletionItems(document: vscode.TextDocument, position: vscode.Position): vscode.CompletionItem[] {
  const items = specCompletions(document.uri.fsPath || document.fileName, document.getText(), position.line, position.character);
  return items.map((c, i) => {
    const item = new vscode.CompletionItem(c.label, c.kind === 'key' ? vscode.CompletionItemKind.Property : vscode.CompletionItemKind.EnumMember);
    item.detail = c.detail;
    if (c.documentation) item.documentation = new vscode.MarkdownString(c.documentation);
    item.range = new vscode.Range(position.line, c.start, position.line, Math.max(c.end, position.character));
    item.insertText = c.insertText;
    // The schema's order (required first) is the order a spec is written in; keep it rather than sorting by label.
    item.sortText = String(i).padStart(4, '0');
    item.filterText = c.label;
    if (c.kind === 'key' && c.insertText.endsWith(': ')) {
      // Enum values are offered straight away after "key: ".
      item.command = { command: 'editor.action.triggerSuggest', title: 'Suggest values' };
    }
    return item;
  });
}

function provideHover(document: vscode.TextDocument, position: vscode.Position): vscode.Hover | undefined {
  const hover = specHover(document.uri.fsPath || document.fileName, document.getText(), position.line, position.character);
  if (!hover) return undefined;
  return new vscode.Hover(new vscode.MarkdownString(hover.markdown), new vscode.Range(position.line, hover.start, position.line, hover.end));
}

class SpecQuickFixes implements vscode.CodeActionProvider {
  constructor(private readonly live: LiveSpecs) {}

  provideCodeActions(document: vscode.TextDocument, range: vscode.Range, context: vscode.CodeActionContext): vscode.CodeAction[] {
    const ours = context.diagnostics.filter((d) => d.source === 'coevolve');
    if (ours.length === 0) return [];
    const problems = this.live.problems(document.uri);
    const actions: vscode.CodeAction[] = [];
    for (const diagnostic of ours) {
      // Diagnostics carry no path; find the problem they were made from by position and message.
      const problem = problems.find((p) =>
        p.message === diagnostic.message && p.line - 1 === diagnostic.range.start.line && p.column - 1 === diagnostic.range.start.character);
      if (!problem) continue;
      for (const fix of fixesFor(problem, document.uri.fsPath, document.getText())) {
        const action = new vscode.CodeAction(fix.title, vscode.CodeActionKind.QuickFix);
        action.diagnostics = [diagnostic];
        action.isPreferred = fix.preferred;
        action.edit = new vscode.WorkspaceEdit();
        for (const e of fix.edits) action.edit.replace(document.uri, toRange(e), e.newText);
        actions.push(action);
      }
    }
    return range ? actions : [];
  }
}

function toRange(e: TextEdit0): vscode.Range {
  return new vscode.Range(e.start.line, e.start.character, e.end.line, e.end.character);
}
