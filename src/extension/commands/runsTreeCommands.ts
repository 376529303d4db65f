import * as vscode from 'vscode';
import type { RegisterCommand } from '../commandRegistrar.js';
import type { RunsTreeProvider } from '../runs/runsTreeProvider.js';
import { filterChoices, type SortKey, type TreeView } from '../runs/runTreeModel.js';

/** The Runs tree's refresh, sort, filter and clear-filter commands, registered in that order. */
export function registerRunsTreeCommands(register: RegisterCommand, tree: RunsTreeProvider): void {
  const setView = (change: Partial<TreeView>): void => tree.setView({ ...tree.treeView, ...change, filter: { ...tree.treeView.filter, ...change.filter } });
  register('coevolve.runs.refresh', () => tree.refresh());
  register('coevolve.runs.sort', async (key?: SortKey) => {
    const pick = key ?? (await vscode.window.showQuickPick(
      [{ label: 'default', description: 'as played' }, { label: 'reward', description: 'highest first' }, { label: 'duration', description: 'longest first' }, { label: 'cost', description: 'most expensive first' }],
      { placeHolder: `Sort pairs and rollouts (now: ${tree.treeView.sort})` },
    ))?.label as SortKey | undefined;
    if (pick) setView({ sort: pick });
  });
  register('coevolve.runs.filter', async (filter?: TreeView['filter']) => {
    if (filter) return setView({ filter });
    const picks = await pickTreeFilters(tree);
    if (!picks) return;
    const next: TreeView['filter'] = {};
    for (const p of picks) Object.assign(next, p.apply);
    tree.setView({ ...tree.treeView, filter: next });
  });
  register('coevolve.runs.clearFilter', () => tree.setView({ filter: {}, sort: 'default' }));
}

/** The filters to show only, among the fixed ones and every tag and family of the readable runs; none = everything. */
async function pickTreeFilters(tree: RunsTreeProvider): Promise<readonly { apply: TreeView['filter'] }[] | undefined> {
  const live = tree.registry.list().flatMap((e) => (e.live ? [e.live] : []));
  const tags = new Set<string>();
  const families = new Set<string>();
  for (const l of live) {
    const c = filterChoices(l);
    c.tags.forEach((t) => tags.add(t));
    c.families.forEach((f) => families.add(f));
  }
  const f = tree.treeView.filter;
  const items: (vscode.QuickPickItem & { apply: TreeView['filter'] })[] = [
    { label: 'Failed only', description: 'rollouts that did not succeed', picked: !!f.failedOnly, apply: { failedOnly: true } },
    { label: 'Failed in every rollout', description: 'pairs with no passing no-hint rollout', picked: !!f.failedEveryTrial, apply: { failedEveryTrial: true } },
    { label: 'In band', description: 'pairs inside the target success band', picked: !!f.inBand, apply: { inBand: true } },
    ...[...tags].sort().map((t) => ({ label: `Tag: ${t}`, picked: f.tag === t, apply: { tag: t } })),
    ...[...families].sort().map((x) => ({ label: `Family: ${x}`, picked: f.family === x, apply: { family: x } })),
  ];
  return vscode.window.showQuickPick(items, { canPickMany: true, placeHolder: 'Show only… (none = everything)' });
}
