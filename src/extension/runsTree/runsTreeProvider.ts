import * as vscode from 'vscode';

/**
 * A node of the Runs tree. Runs, generations, pairs and rollouts arrive with the run store reader; until then the
 * tree is empty and VS Code shows the view's welcome content (contributes.viewsWelcome).
 */
export interface RunNode {
  readonly id: string;
  readonly label: string;
}

export class RunsTreeProvider implements vscode.TreeDataProvider<RunNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<RunNode | undefined>();
  readonly onDidChangeTreeData: vscode.Event<RunNode | undefined> = this.changed.event;

  getTreeItem(node: RunNode): vscode.TreeItem {
    const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
    item.id = node.id;
    return item;
  }

  getChildren(_parent?: RunNode): RunNode[] {
    return [];
  }

  refresh(): void {
    this.changed.fire(undefined);
  }

  dispose(): void {
    this.changed.dispose();
  }
}
