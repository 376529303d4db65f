// Export Dataset: asks for what the command's arguments do not give (run, format, folder, which verdicts), runs
// `coevolve export` and reports what it exported, or why nothing was.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { listRuns } from '../../store/runReader.js';
import { runsOutputDirs } from '../settings.js';
import { exportArguments } from '../../viewdata/datasetItems.js';
import type { DatasetTreeProvider } from './datasetView.js';

const exportFormats = ['chat-jsonl', 'atif', 'harbor'] as const;

interface ExportReport { exported?: number; considered?: number; excluded?: Record<string, number>; warnings?: string[] }
interface CliResult { code: number; stdout: string; stderr: string }

export async function exportDataset(context: vscode.ExtensionContext, provider: DatasetTreeProvider, log: vscode.LogOutputChannel, runArg?: unknown, formatArg?: unknown, outArg?: unknown): Promise<unknown> {
  const runDir = await exportRun(runArg);
  if (!runDir) return undefined;
  const format = await exportFormat(formatArg);
  if (!format || !(exportFormats as readonly string[]).includes(format)) return undefined;
  const name = runDir.split(/[\\/]/).pop() ?? 'run';
  const outDir = await exportFolder(runDir, name, format, outArg);
  if (!outDir) return undefined;

  const everythingNotRejected = await exportSelection(provider, formatArg);
  if (everythingNotRejected === undefined) return undefined;
  const { args, unsupported } = exportArguments(provider.filters, everythingNotRejected);
  if (unsupported.length > 0) log.warn(`export: the Dataset view filter(s) ${unsupported.join(', ')} have no \`coevolve export\` option and are not applied`);
  const cli = join(context.extensionPath, 'dist', 'cli.js');
  const argv = [cli, 'export', runDir, '--format', format, '--out', outDir, ...args, '--json'];
  log.info(`coevolve ${argv.slice(1).join(' ')}`);
  const result = await runExportCli(argv, name, format);
  return reportExport(result, log, outDir);
}

/** The run: the argument (a path, or a tree node with a runDir), else picked among the runs folder's runs. */
async function exportRun(runArg: unknown): Promise<string | undefined> {
  const runs = runsOutputDirs().flatMap((out) => listRuns(out));
  const fromNode = runArg && typeof runArg === 'object' && typeof (runArg as { runDir?: unknown }).runDir === 'string' ? (runArg as { runDir: string }).runDir : undefined;
  return typeof runArg === 'string' ? runArg : fromNode ?? (await vscode.window.showQuickPick(
    runs.map((r) => ({ label: r.manifest.name, description: r.manifest.startedAt, detail: r.dir, dir: r.dir })),
    { title: 'Export dataset', placeHolder: runs.length ? 'Run to export' : 'No runs in the runs folder' },
  ))?.dir;
}

async function exportFormat(formatArg: unknown): Promise<string | undefined> {
  return typeof formatArg === 'string' ? formatArg : (await vscode.window.showQuickPick(
    [
      { label: 'chat-jsonl', description: 'OpenAI chat messages with tools, for SFT and RL trainers' },
      { label: 'atif', description: 'ATIF v1.7 trajectories' },
      { label: 'harbor', description: 'one Harbor task folder per accepted environment' },
    ],
    { title: 'Export format' },
  ))?.label;
}

/** The output folder: the argument, else asked, offering `datasets/<run>-<format>` in the run's workspace folder. */
async function exportFolder(runDir: string, name: string, format: string, outArg: unknown): Promise<string | undefined> {
  const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(runDir))?.uri.fsPath ?? join(runDir, '..', '..');
  return typeof outArg === 'string' ? outArg : (await vscode.window.showInputBox({ title: 'Export to folder', value: join(folder, 'datasets', `${name}-${format}`), ignoreFocusOut: true }));
}

/** Whether uncurated rollouts go in too (`--filter all`); undefined when the user cancelled the choice. */
async function exportSelection(provider: DatasetTreeProvider, formatArg: unknown): Promise<boolean | undefined> {
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
  return everythingNotRejected;
}

/** Runs the bundled CLI under a progress notification; resolves with its exit code and output, never rejects. */
async function runExportCli(argv: string[], name: string, format: string): Promise<CliResult> {
  const node = process.versions.electron ? 'node' : process.execPath;
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Coevolve: exporting ${name} as ${format}`, cancellable: false },
    () => new Promise<CliResult>((resolve) => {
      execFile(node, argv, { maxBuffer: 64 * 1024 * 1024, env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } }, (err, stdout, stderr) => {
        const code = err && typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : err ? 1 : 0;
        resolve({ code, stdout, stderr });
      });
    }),
  );
}

/** Tells the user what was exported (with any warnings, and a Reveal button) or why nothing was; returns the outcome. */
function reportExport(result: CliResult, log: vscode.LogOutputChannel, outDir: string): unknown {
  let report: ExportReport | undefined;
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
