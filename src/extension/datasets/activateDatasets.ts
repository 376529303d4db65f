// Curation in the editor: Accept / Reject / Clear / Label / Comment on rollouts (Runs tree, rollout viewer, Dataset
// view) and environments (a pair of the Runs tree), recorded append-only in the run's curation.jsonl; the Dataset
// view of what is curated, its filters, and Export Dataset (runs `coevolve export`).
import { join } from 'node:path';
import * as vscode from 'vscode';
import { runLayout } from '../../store/layout.js';
import { filterChoices, noFilters, type DatasetFilters } from '../../viewdata/datasetItems.js';
import { commandRegistrar, type RegisterCommand } from '../commandRegistrar.js';
import { registerCurationCommands } from './curationCommands.js';
import { DatasetTreeProvider, type DatasetNode } from './datasetView.js';
import { exportDataset } from './exportDataset.js';

export interface Datasets {
  provider: DatasetTreeProvider;
}

/**
 * `activeRollout` names the rollout of the focused rollout viewer: with a webview focused there is no active text
 * editor, so palette commands would otherwise have nothing to act on.
 */
export function activateDatasets(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, activeRollout: () => { runDir: string; rolloutId: string } | undefined = () => undefined): Datasets {
  const provider = new DatasetTreeProvider(log);
  const view = vscode.window.createTreeView('coevolve.dataset', { treeDataProvider: provider, showCollapseAll: true });
  const showFilters = (): void => showDatasetFilters(view, provider);
  const register = commandRegistrar(context);

  registerCurationCommands(register, { provider, log, activeRollout });
  registerDatasetCommands(register, provider, showFilters);
  register('coevolve.exportDataset', async (runArg?: unknown, formatArg?: unknown, outArg?: unknown) => exportDataset(context, provider, log, runArg, formatArg, outArg));

  const watcher = vscode.workspace.createFileSystemWatcher('**/{curation.jsonl,manifest.json}');
  const changedRun = (uri: vscode.Uri): void => provider.invalidate(join(uri.fsPath, '..'));
  context.subscriptions.push(
    provider,
    view,
    watcher,
    watcher.onDidChange(changedRun),
    watcher.onDidCreate(() => provider.invalidate()),
    watcher.onDidDelete(() => provider.invalidate()),
  );
  showFilters();
  return { provider };
}

/** The view's description and message name the filters in use; the context key shows the clear-filters button. */
function showDatasetFilters(view: vscode.TreeView<DatasetNode>, provider: DatasetTreeProvider): void {
  const d = provider.describe();
  view.description = d;
  view.message = d ? `Filtered: ${d}` : undefined;
  void vscode.commands.executeCommand('setContext', 'coevolve.dataset.filtered', d !== '');
}

/** The Dataset view's open, refresh, clear-filters and filter commands, registered in that order. */
function registerDatasetCommands(register: RegisterCommand, provider: DatasetTreeProvider, showFilters: () => void): void {
  register('coevolve.dataset.open', async (node?: unknown) => {
    const n = node as DatasetNode | undefined;
    if (n?.type !== 'item' || n.item.target.kind !== 'rollout' || n.item.generation === undefined) return;
    const ref = { kind: 'rollout', runDir: n.item.runDir, rolloutId: n.item.target.id, generation: n.item.generation, pairId: n.item.pairId };
    const commands = await vscode.commands.getCommands(true);
    if (commands.includes('coevolve.openRollout')) await vscode.commands.executeCommand('coevolve.openRollout', ref);
    else await vscode.window.showTextDocument(vscode.Uri.file(runLayout.rollout(ref.runDir, ref.generation, ref.rolloutId)));
  });
  register('coevolve.dataset.refresh', () => provider.invalidate());
  register('coevolve.dataset.clearFilters', () => {
    provider.setFilters(noFilters);
    showFilters();
  });
  register('coevolve.dataset.filter', async (given?: unknown) => {
    const filters = isFilters(given) ? given : await pickFilters(provider);
    if (!filters) return undefined;
    provider.setFilters(filters);
    showFilters();
    return provider.visibleItems().length;
  });
}

function isFilters(v: unknown): v is DatasetFilters {
  return !!v && typeof v === 'object' && 'verdict' in v && Array.isArray((v as DatasetFilters).tags);
}

async function pickFilters(provider: DatasetTreeProvider): Promise<DatasetFilters | undefined> {
  const f = provider.filters;
  const choices = filterChoices(provider.allItems());
  type Pick = vscode.QuickPickItem & { apply: (d: DatasetFilters) => void };
  const items: Pick[] = [
    { label: 'Accepted', description: 'only items curation accepted', picked: f.verdict === 'accepted', apply: (d) => { d.verdict = 'accepted'; } },
    { label: 'Rejected', description: 'only items curation rejected', picked: f.verdict === 'rejected', apply: (d) => { d.verdict = 'rejected'; } },
    { label: 'In band', description: 'pairs whose success rate is inside the run\'s band', picked: f.inBand, apply: (d) => { d.inBand = true; } },
    { label: 'Reward ≥ …', description: f.minReward !== undefined ? `now ${f.minReward}` : 'asks for a threshold', picked: f.minReward !== undefined, apply: () => undefined },
    ...choices.tags.map((t): Pick => ({ label: `Tag: ${t}`, picked: f.tags.includes(t), apply: (d) => void d.tags.push(t) })),
    ...choices.families.map((x): Pick => ({ label: `Family: ${x}`, picked: f.families.includes(x), apply: (d) => void d.families.push(x) })),
    ...choices.generations.map((g): Pick => ({ label: `Generation ${g}`, picked: f.generations.includes(g), apply: (d) => void d.generations.push(g) })),
  ];
  const picked = await vscode.window.showQuickPick(items, { canPickMany: true, title: 'Dataset filters', placeHolder: 'Show only… (none = everything curated)' });
  if (!picked) return undefined;
  const next: DatasetFilters = { verdict: 'any', inBand: false, tags: [], families: [], generations: [] };
  for (const p of picked) p.apply(next);
  if (picked.some((p) => p.label === 'Reward ≥ …')) {
    const value = await vscode.window.showInputBox({
      title: 'Minimum reward',
      value: String(f.minReward ?? 0.5),
      validateInput: (v) => (Number.isFinite(Number(v)) ? undefined : 'a number, e.g. 0.5'),
    });
    if (value !== undefined) next.minReward = Number(value);
  }
  return next;
}
