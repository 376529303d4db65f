// Curation in the editor: Accept / Reject / Clear / Label / Comment on rollouts (Runs tree, rollout viewer, Dataset
// view) and environments (a pair of the Runs tree), recorded append-only in the run's curation.jsonl; the Dataset
// view of what is curated, its filters, and Export Dataset (runs `coevolve export`).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { appendCuration, readCuration, curationKey, type CurationAction, type CurationEntry } from '../../store/curation.js';
import { runLayout } from '../../store/layout.js';
import { listRuns } from '../../store/runReader.js';
import { runsOutputDirs } from '../settings.js';
import { exportArguments, filterChoices, noFilters, type DatasetFilters } from '../../viewdata/datasetItems.js';
import { curationSubject, type CurationSubject } from './curationTarget.js';
import { DatasetTreeProvider, type DatasetNode } from './datasetView.js';

export interface Datasets {
  provider: DatasetTreeProvider;
}

const exportFormats = ['chat-jsonl', 'atif', 'harbor'] as const;

/**
 * `activeRollout` names the rollout of the focused rollout viewer: with a webview focused there is no active text
 * editor, so palette commands would otherwise have nothing to act on.
 */
export function activateDatasets(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, activeRollout: () => { runDir: string; rolloutId: string } | undefined = () => undefined): Datasets {
  const provider = new DatasetTreeProvider(log);
  const view = vscode.window.createTreeView('coevolve.dataset', { treeDataProvider: provider, showCollapseAll: true });
  const showFilters = (): void => {
    const d = provider.describe();
    view.description = d;
    view.message = d ? `Filtered: ${d}` : undefined;
    void vscode.commands.executeCommand('setContext', 'coevolve.dataset.filtered', d !== '');
  };

  const author = (): string => {
    try {
      return userInfo().username;
    } catch {
      return 'editor';
    }
  };

  /** Resolves the subject (asking for nothing: the command's argument or the open rollout file) and appends. */
  const record = async (action: CurationAction, args: unknown[], extra: Partial<CurationEntry> = {}): Promise<CurationEntry | undefined> => {
    const subject = resolveSubject(args);
    if (!subject) return undefined;
    const entry: CurationEntry = { at: new Date().toISOString(), target: subject.target, action, author: author(), ...extra };
    await appendCuration(subject.runDir, [entry]);
    log.info(`curation: ${action} ${subject.target.kind} ${subject.target.id}${entry.label ? ` "${entry.label}"` : ''} in ${subject.runDir}`);
    provider.invalidate(subject.runDir);
    return entry;
  };

  const resolveSubject = (args: unknown[]): CurationSubject | undefined => {
    const active = vscode.window.activeTextEditor?.document.uri;
    const shown = args.length === 0 ? activeRollout() : undefined;
    const subject = shown ? curationSubject(shown.runDir, shown.rolloutId) : curationSubject(args[0], args[1], active?.scheme === 'file' ? active.fsPath : undefined);
    if (!subject) {
      void vscode.window.showWarningMessage('Coevolve: choose a rollout (Runs tree, rollout viewer or Dataset view) or an environment (a pair in the Runs tree) to curate.');
      return undefined;
    }
    if (!existsSync(runLayout.manifest(subject.runDir))) {
      void vscode.window.showErrorMessage(`Coevolve: ${subject.runDir} is not a run directory (no manifest.json); curation is recorded in a run's folder.`);
      return undefined;
    }
    return subject;
  };

  const register = (id: string, fn: (...args: unknown[]) => unknown): void => void context.subscriptions.push(vscode.commands.registerCommand(id, fn));

  register('coevolve.curation.accept', (...args) => record('accept', args));
  register('coevolve.curation.reject', (...args) => record('reject', args));
  register('coevolve.curation.clear', (...args) => record('clear', args));
  register('coevolve.curation.label', async (...args) => {
    const subject = resolveSubject(args);
    if (!subject) return undefined;
    // A third argument (the viewer, tests) gives the label; otherwise pick one used before or type a new one.
    const given = typeof args[2] === 'string' ? args[2] : undefined;
    const label = given ?? (await pickLabel(provider));
    if (!label?.trim()) return undefined;
    return record('label', [subject], { label: label.trim() });
  });
  register('coevolve.curation.comment', async (...args) => {
    const subject = resolveSubject(args);
    if (!subject) return undefined;
    const given = typeof args[2] === 'string' ? args[2] : undefined;
    const text = given ?? (await vscode.window.showInputBox({ title: `Comment on ${subject.target.kind} ${subject.target.id}`, prompt: 'Kept in the run\'s curation.jsonl and shown in the Dataset view', ignoreFocusOut: true }));
    if (!text?.trim()) return undefined;
    return record('comment', [subject], { text: text.trim() });
  });
  register('coevolve.curation.state', (...args) => {
    const subject = curationSubject(args[0], args[1]);
    return subject ? readCuration(subject.runDir).states.get(curationKey(subject.target)) : undefined;
  });

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

function isFilters(v: unknown): v is DatasetFilters {
  return !!v && typeof v === 'object' && 'verdict' in v && Array.isArray((v as DatasetFilters).tags);
}

async function pickLabel(provider: DatasetTreeProvider): Promise<string | undefined> {
  const used = [...new Set(provider.allItems().flatMap((i) => i.labels))].sort();
  if (used.length === 0) return vscode.window.showInputBox({ title: 'Label', prompt: 'A label for this item (e.g. "clarification", "good-oracle")' });
  const quick = vscode.window.createQuickPick();
  quick.title = 'Label';
  quick.placeholder = 'Pick a label used before, or type a new one';
  quick.items = used.map((label) => ({ label }));
  return new Promise((resolve) => {
    quick.onDidAccept(() => {
      resolve(quick.selectedItems[0]?.label ?? quick.value);
      quick.hide();
    });
    quick.onDidHide(() => {
      resolve(undefined);
      quick.dispose();
    });
    quick.show();
  });
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

async function exportDataset(context: vscode.ExtensionContext, provider: DatasetTreeProvider, log: vscode.LogOutputChannel, runArg?: unknown, formatArg?: unknown, outArg?: unknown): Promise<unknown> {
  const runs = runsOutputDirs().flatMap((out) => listRuns(out));
  const fromNode = runArg && typeof runArg === 'object' && typeof (runArg as { runDir?: unknown }).runDir === 'string' ? (runArg as { runDir: string }).runDir : undefined;
  const runDir = typeof runArg === 'string' ? runArg : fromNode ?? (await vscode.window.showQuickPick(
    runs.map((r) => ({ label: r.manifest.name, description: r.manifest.startedAt, detail: r.dir, dir: r.dir })),
    { title: 'Export dataset', placeHolder: runs.length ? 'Run to export' : 'No runs in the runs folder' },
  ))?.dir;
  if (!runDir) return undefined;
  const format = typeof formatArg === 'string' ? formatArg : (await vscode.window.showQuickPick(
    [
      { label: 'chat-jsonl', description: 'OpenAI chat messages with tools, for SFT and RL trainers' },
      { label: 'atif', description: 'ATIF v1.7 trajectories' },
      { label: 'harbor', description: 'one Harbor task folder per accepted environment' },
    ],
    { title: 'Export format' },
  ))?.label;
  if (!format || !(exportFormats as readonly string[]).includes(format)) return undefined;
  const name = runDir.split(/[\\/]/).pop() ?? 'run';
  const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(runDir))?.uri.fsPath ?? join(runDir, '..', '..');
  const outDir = typeof outArg === 'string' ? outArg : (await vscode.window.showInputBox({ title: 'Export to folder', value: join(folder, 'datasets', `${name}-${format}`), ignoreFocusOut: true }));
  if (!outDir) return undefined;

  // The same selection as `coevolve export` by default; widening it is a choice the user makes here, not a side
  // effect of the Dataset view showing every verdict.
  let everythingNotRejected = false;
  if (typeof formatArg !== 'string' && provider.filters.verdict !== 'accepted') {
    const pick = await vscode.window.showQuickPick(
      [
        { label: 'Accepted by curation only', description: 'the default of coevolve export', all: false },
        { label: 'Everything not rejected', description: 'uncurated rollouts too (--filter all)', all: true },
      ],
      { title: 'Which rollouts go into the dataset?', placeHolder: 'Hint plays, unsandboxed and infrastructure-error rollouts stay out either way' },
    );
    if (!pick) return undefined;
    everythingNotRejected = pick.all;
  }
  const { args, unsupported } = exportArguments(provider.filters, everythingNotRejected);
  if (unsupported.length > 0) log.warn(`export: the Dataset view filter(s) ${unsupported.join(', ')} have no \`coevolve export\` option and are not applied`);
  const cli = join(context.extensionPath, 'dist', 'cli.js');
  const argv = [cli, 'export', runDir, '--format', format, '--out', outDir, ...args, '--json'];
  log.info(`coevolve ${argv.slice(1).join(' ')}`);
  const node = process.versions.electron ? 'node' : process.execPath;
  const result = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Coevolve: exporting ${name} as ${format}`, cancellable: false },
    () => new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(node, argv, { maxBuffer: 64 * 1024 * 1024, env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } }, (err, stdout, stderr) => {
        const code = err && typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : err ? 1 : 0;
        resolve({ code, stdout, stderr });
      });
    }),
  );
  let report: { exported?: number; considered?: number; excluded?: Record<string, number>; warnings?: string[] } | undefined;
  try {
    report = JSON.parse(result.stdout) as typeof report;
  } catch {
    report = undefined;
  }
  if (result.code !== 0 || !report) {
    // Exit 1 with a report: the export ran and nothing passed the filters; say why.
    const why = report?.excluded ? Object.entries(report.excluded).map(([reason, n]) => `${n} ${reason}`).join('; ') : (result.stderr || result.stdout).trim().split('\n').slice(-3).join(' ');
    log.error(`export (exit ${result.code}): ${result.stderr}${result.stdout}`);
    void vscode.window.showErrorMessage(report ? `Coevolve: nothing was exported: ${why}` : `Coevolve: export failed: ${why}`);
    return { code: result.code, ...(report ? { report } : { error: why }) };
  }
  const warnings = report.warnings ?? [];
  for (const w of warnings) log.warn(`export: ${w}`);
  const done = `Coevolve: exported ${report.exported ?? '?'} item(s) to ${vscode.workspace.asRelativePath(outDir, false)}.`;
  const show = warnings.length > 0 ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
  void show(warnings.length > 0 ? `${done} Warning: ${warnings.join('; ')}` : done, 'Reveal').then((c) => {
    if (c) void vscode.commands.executeCommand('revealInExplorer', vscode.Uri.file(outDir));
  });
  return { code: 0, report };
}
