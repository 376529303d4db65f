// The Dataset view: what has been curated across the workspace's runs (run → curated rollouts and environments),
// narrowed by the view's filters. It re-reads a run when its curation.jsonl or event log changes.
import { existsSync } from 'node:fs';
import * as vscode from 'vscode';
import { readCuration } from '../../store/curation.js';
import { runLayout } from '../../store/layout.js';
import { listRuns, openRun, readEnvironment } from '../../store/runReader.js';
import { runsOutputDirs } from '../settings.js';
import { datasetItems, describeFilters, matchesFilters, noFilters, type DatasetFilters, type DatasetItem } from '../../viewdata/datasetItems.js';

export type DatasetNode =
  | { type: 'run'; runDir: string; name: string; items: DatasetItem[]; total: number }
  | { type: 'item'; item: DatasetItem }
  | { type: 'problem'; runDir: string; message: string };

interface RunEntry {
  runDir: string;
  name: string;
  items: DatasetItem[];
  problem?: string;
}

export class DatasetTreeProvider implements vscode.TreeDataProvider<DatasetNode> {
  private readonly changed = new vscode.EventEmitter<DatasetNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private cache = new Map<string, RunEntry>();
  private stale = true;
  filters: DatasetFilters = noFilters;

  constructor(private readonly log: vscode.LogOutputChannel) {}

  /** Re-reads one run (or every run) at the next look. */
  invalidate(runDir?: string): void {
    if (runDir) this.cache.delete(runDir);
    else this.stale = true;
    this.changed.fire(undefined);
  }

  setFilters(filters: DatasetFilters): void {
    this.filters = filters;
    this.changed.fire(undefined);
  }

  dispose(): void {
    this.changed.dispose();
  }

  /** Every curated item of every run, unfiltered (for filter choices and tests). */
  allItems(): DatasetItem[] {
    return this.runs().flatMap((r) => r.items);
  }

  /** The items the filters let through. */
  visibleItems(): DatasetItem[] {
    return this.allItems().filter((i) => matchesFilters(i, this.filters));
  }

  runs(): RunEntry[] {
    const dirs = runsOutputDirs().flatMap((out) => listRuns(out).map((r) => r.dir));
    if (this.stale) {
      this.cache.clear();
      this.stale = false;
    }
    for (const dir of [...this.cache.keys()]) if (!dirs.includes(dir)) this.cache.delete(dir);
    for (const dir of dirs) if (!this.cache.has(dir)) this.cache.set(dir, this.load(dir));
    return dirs.map((d) => this.cache.get(d)!);
  }

  private load(runDir: string): RunEntry {
    try {
      const run = openRun(runDir);
      const curation = readCuration(runDir);
      if (curation.badLines.length > 0) this.log.warn(`${runLayout.curation(runDir)}: ${curation.badLines.length} unreadable line(s) skipped`);
      const families = new Map<string, { family: string; skills: string[] } | undefined>();
      const items = datasetItems({
        run,
        curation,
        environment: (id) => {
          if (!families.has(id)) {
            try {
              const spec = readEnvironment(runDir, id);
              families.set(id, { family: spec.family, skills: spec.skills });
            } catch {
              families.set(id, undefined);
            }
          }
          return families.get(id);
        },
      });
      return { runDir, name: run.manifest.name, items };
    } catch (err) {
      return { runDir, name: runDir.split(/[\\/]/).pop() ?? runDir, items: [], problem: err instanceof Error ? err.message : String(err) };
    }
  }

  getChildren(node?: DatasetNode): DatasetNode[] {
    if (node?.type === 'run') return node.items.map((item) => ({ type: 'item', item }));
    if (node) return [];
    const out: DatasetNode[] = [];
    for (const r of this.runs()) {
      if (r.problem) {
        out.push({ type: 'problem', runDir: r.runDir, message: r.problem });
        continue;
      }
      const shown = r.items.filter((i) => matchesFilters(i, this.filters));
      if (shown.length > 0) out.push({ type: 'run', runDir: r.runDir, name: r.name, items: shown, total: r.items.length });
    }
    return out;
  }

  getTreeItem(node: DatasetNode): vscode.TreeItem {
    if (node.type === 'problem') {
      const item = new vscode.TreeItem(node.runDir.split(/[\\/]/).pop() ?? node.runDir);
      item.description = 'cannot read this run';
      item.tooltip = node.message;
      item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
      return item;
    }
    if (node.type === 'run') {
      const item = new vscode.TreeItem(node.name, vscode.TreeItemCollapsibleState.Expanded);
      item.id = `run:${node.runDir}`;
      const accepted = node.items.filter((i) => i.verdict === 'accepted').length;
      item.description = `${node.items.length}${node.items.length === node.total ? '' : ` of ${node.total}`} curated · ${accepted} accepted`;
      item.tooltip = node.runDir;
      item.iconPath = new vscode.ThemeIcon('database');
      item.contextValue = 'coevolve.dataset.run';
      return item;
    }
    const i = node.item;
    const label = i.target.kind === 'rollout' ? i.target.id : `environment ${i.target.id}`;
    const item = new vscode.TreeItem(label);
    item.id = `item:${i.runDir}|${i.target.kind}|${i.target.id}`;
    const parts: string[] = [];
    if (i.verdict) parts.push(i.verdict);
    if (i.reward !== undefined) parts.push(`reward ${i.reward.toFixed(2)}`);
    if (i.generation !== undefined) parts.push(`g${i.generation}`);
    if (i.inBand) parts.push('in band');
    if (i.labels.length) parts.push(i.labels.map((l) => `#${l}`).join(' '));
    item.description = parts.join(' · ');
    item.iconPath = i.verdict === 'accepted'
      ? new vscode.ThemeIcon('pass-filled', new vscode.ThemeColor('testing.iconPassed'))
      : i.verdict === 'rejected'
        ? new vscode.ThemeIcon('circle-slash', new vscode.ThemeColor('testing.iconFailed'))
        : new vscode.ThemeIcon(i.comments.length ? 'comment' : 'tag');
    const tip = new vscode.MarkdownString();
    tip.appendMarkdown(`**${label}** (${i.runName})\n\n`);
    const facts = [
      i.verdict ? `${i.verdict}${i.verdictNote ? `: ${i.verdictNote}` : ''}` : 'no verdict',
      i.family ? `family ${i.family}` : '',
      i.successRate !== undefined ? `success ${Math.round(i.successRate * 100)}%${i.inBand ? ' (in band)' : ''}` : '',
      i.tags.length ? `tags ${i.tags.join(', ')}` : '',
      i.labels.length ? `labels ${i.labels.join(', ')}` : '',
    ].filter(Boolean);
    tip.appendText(facts.join('\n'));
    for (const c of i.comments) tip.appendText(`\n— ${c}`);
    item.tooltip = tip;
    item.contextValue = i.target.kind === 'rollout' ? 'coevolve.dataset.rollout' : 'coevolve.dataset.environment';
    if (i.target.kind === 'rollout' && i.generation !== undefined) {
      item.command = { command: 'coevolve.dataset.open', title: 'Open', arguments: [node] };
    } else if (i.target.kind === 'environment') {
      const file = runLayout.environment(i.runDir, i.target.id);
      if (existsSync(file)) item.command = { command: 'vscode.open', title: 'Open environment', arguments: [vscode.Uri.file(file)] };
    }
    return item;
  }

  describe(): string {
    return describeFilters(this.filters);
  }
}
