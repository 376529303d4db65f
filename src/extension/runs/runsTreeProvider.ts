import * as vscode from 'vscode';
import { RunRegistry } from '../../viewdata/runRegistry.js';
import { childrenOf, defaultView, describeView, isFiltered, problemNode, runNode, runNodeOfFacts, type RunTreeNode, type TreeView } from './runTreeModel.js';

export type { RunTreeNode };

/**
 * The Runs tree: run → generation → (environment, user) pair → rollout, children computed lazily by the pure
 * model from the shared RunRegistry. Live refresh comes from the run watcher through the registry.
 */
export class RunsTreeProvider implements vscode.TreeDataProvider<RunTreeNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<RunTreeNode | undefined>();
  readonly onDidChangeTreeData: vscode.Event<RunTreeNode | undefined> = this.changed.event;
  private view: TreeView = defaultView;
  private readonly subscription: { dispose(): void };

  constructor(readonly registry: RunRegistry) {
    this.subscription = registry.onDidChange(() => this.changed.fire(undefined));
  }

  get treeView(): TreeView {
    return this.view;
  }

  setView(view: TreeView): void {
    this.view = view;
    void vscode.commands.executeCommand('setContext', 'coevolve.runs.filtered', isFiltered(view) || view.sort !== 'default');
    this.changed.fire(undefined);
  }

  describeView(): string {
    return describeView(this.view);
  }

  getTreeItem(node: RunTreeNode): vscode.TreeItem {
    const item = new vscode.TreeItem(node.label, node.collapsible ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    item.id = node.key;
    item.description = node.description;
    item.tooltip = node.tooltip;
    item.contextValue = node.contextValue;
    item.iconPath = new vscode.ThemeIcon(node.icon.id, node.icon.color ? new vscode.ThemeColor(node.icon.color) : undefined);
    if (node.kind === 'rollout' && !node.running) {
      item.command = { command: 'coevolve.openRollout', title: 'Open Rollout', arguments: [node] };
    }
    if (node.kind === 'run') item.resourceUri = vscode.Uri.file(node.runDir);
    return item;
  }

  getChildren(parent?: RunTreeNode): RunTreeNode[] {
    if (!parent) {
      // Runs nobody opened are drawn from their facts (no event log read); expanding one opens it.
      return this.registry.rows().map((e) => (e.live ? runNode(e.live) : e.manifest && e.facts ? runNodeOfFacts(e.dir, e.manifest, e.facts) : problemNode(e.dir, e.problem ?? 'unreadable')));
    }
    if (parent.kind === 'problem') return [];
    try {
      return childrenOf(this.registry.get(parent.runDir), this.view, parent);
    } catch (err) {
      return [problemNode(parent.runDir, err instanceof Error ? err.message : String(err))];
    }
  }

  /** The parent of a node, so `TreeView.reveal` works (rollouts are revealed when a viewer opens them). */
  getParent(node: RunTreeNode): RunTreeNode | undefined {
    if (node.kind === 'run' || node.kind === 'problem') return undefined;
    const live = this.registry.get(node.runDir);
    if (node.kind === 'generation') return runNode(live);
    const gens = childrenOf(live, this.view, runNode(live));
    const gen = gens.find((g) => g.kind === 'generation' && g.generation === node.generation);
    if (node.kind === 'pair') return gen;
    return gen ? childrenOf(live, this.view, gen).find((p) => p.kind === 'pair' && p.pairId === node.pairId) : undefined;
  }

  refresh(): void {
    this.registry.refreshAll();
    this.changed.fire(undefined);
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }
}
