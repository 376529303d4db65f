// The Environments view: the workspace's spec files grouped by kind, each with its validation state (spec errors,
// warnings, valid — and, for environments, the last sandbox validation of this session).
import * as vscode from 'vscode';
import { kindFromFileName, specKinds, type SpecKind } from '../../core/spec/kinds.js';
import type { EnvironmentTests } from './environmentTests.js';
import type { LiveSpecs } from './liveDiagnostics.js';

export type EnvironmentsNode = { type: 'kind'; kind: SpecKind; files: string[] } | { type: 'spec'; kind: SpecKind; file: string };

const groupTitle: Record<SpecKind, string> = { Environment: 'Environments', User: 'Users', Agent: 'Agents', Run: 'Run configs' };
const contextOf: Record<SpecKind, string> = {
  Environment: 'coevolve.spec.environment',
  User: 'coevolve.spec.user',
  Agent: 'coevolve.spec.agent',
  Run: 'coevolve.spec.run',
};

export class EnvironmentsTreeProvider implements vscode.TreeDataProvider<EnvironmentsNode> {
  private readonly changed = new vscode.EventEmitter<EnvironmentsNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly live: LiveSpecs, private readonly tests: EnvironmentTests) {}

  refresh(): void {
    this.changed.fire(undefined);
  }

  dispose(): void {
    this.changed.dispose();
  }

  getChildren(node?: EnvironmentsNode): EnvironmentsNode[] {
    if (node?.type === 'spec') return [];
    const files = this.live.index.fileNames();
    if (node?.type === 'kind') return node.files.map((file) => ({ type: 'spec', kind: node.kind, file }));
    const byKind = new Map<SpecKind, string[]>();
    for (const file of files) {
      const kind = kindFromFileName(file) ?? this.live.index.get(file)?.kind;
      if (!kind) continue;
      byKind.set(kind, [...(byKind.get(kind) ?? []), file]);
    }
    return specKinds.filter((k) => byKind.has(k)).map((kind) => ({ type: 'kind', kind, files: byKind.get(kind)! }));
  }

  getTreeItem(node: EnvironmentsNode): vscode.TreeItem {
    if (node.type === 'kind') {
      const item = new vscode.TreeItem(groupTitle[node.kind], node.kind === 'Environment' ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed);
      const errors = node.files.filter((f) => this.live.index.state(f) === 'errors').length;
      item.description = errors > 0 ? `${node.files.length} · ${errors} with errors` : String(node.files.length);
      item.contextValue = `coevolve.specGroup.${node.kind.toLowerCase()}`;
      item.id = `group:${node.kind}`;
      return item;
    }
    const uri = vscode.Uri.file(node.file);
    const parsed = this.live.index.get(node.file);
    const spec = parsed?.spec as { id?: string; name?: string; title?: string } | undefined;
    const label = spec?.id ?? spec?.name ?? vscode.workspace.asRelativePath(uri, false).split('/').pop()!;
    const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
    item.id = `spec:${uri.toString()}`;
    item.resourceUri = uri;
    item.contextValue = contextOf[node.kind];
    item.command = { command: 'vscode.open', title: 'Open spec', arguments: [uri] };
    const state = this.live.index.state(node.file);
    const problems = this.live.index.problems(node.file);
    const errors = problems.filter((p) => p.severity === 'error').length;
    const outcome = node.kind === 'Environment' ? this.tests.lastOutcome(uri) : undefined;
    const parts = [vscode.workspace.asRelativePath(uri, false)];
    if (state === 'errors') parts.unshift(`${errors} error${errors === 1 ? '' : 's'}`);
    else if (state === 'warnings') parts.unshift(`${problems.length} warning${problems.length === 1 ? '' : 's'}`);
    else if (outcome) parts.unshift(outcome === 'passed' ? 'validated in sandbox' : `sandbox validation ${outcome}`);
    item.description = parts.join(' · ');
    item.iconPath = iconFor(state, outcome);
    const tooltip = new vscode.MarkdownString();
    tooltip.appendMarkdown(`**${label}**${spec?.title ? ` — ${spec.title}` : ''}\n\n`);
    tooltip.appendText(vscode.workspace.asRelativePath(uri, false));
    tooltip.appendMarkdown('\n\n');
    if (problems.length === 0) tooltip.appendText('The spec validates.');
    for (const p of problems.slice(0, 5)) tooltip.appendText(`\n${p.line}:${p.column} ${p.severity}: ${p.message}`);
    if (outcome) tooltip.appendText(`\n\nSandbox validation this session: ${outcome}.`);
    item.tooltip = tooltip;
    return item;
  }
}

function iconFor(state: string | undefined, outcome: string | undefined): vscode.ThemeIcon {
  if (state === 'errors') return new vscode.ThemeIcon('error', new vscode.ThemeColor('problemsErrorIcon.foreground'));
  if (outcome === 'failed' || outcome === 'errored') return new vscode.ThemeIcon('testing-failed-icon', new vscode.ThemeColor('testing.iconFailed'));
  if (state === 'warnings') return new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'));
  if (outcome === 'passed') return new vscode.ThemeIcon('testing-passed-icon', new vscode.ThemeColor('testing.iconPassed'));
  return new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed'));
}

export function activateEnvironmentsView(context: vscode.ExtensionContext, live: LiveSpecs, tests: EnvironmentTests): EnvironmentsTreeProvider {
  const provider = new EnvironmentsTreeProvider(live, tests);
  const view = vscode.window.createTreeView('coevolve.environments', { treeDataProvider: provider, showCollapseAll: true });
  let pending: NodeJS.Timeout | undefined;
  // Diagnostics change on every pause in typing; the tree follows at most a few times a second.
  const refreshSoon = (): void => {
    if (pending) return;
    pending = setTimeout(() => {
      pending = undefined;
      provider.refresh();
    }, 250);
  };
  context.subscriptions.push(provider, view, live.onDidChange(refreshSoon), tests.onDidFinish(refreshSoon), { dispose: () => pending && clearTimeout(pending) });
  return provider;
}
