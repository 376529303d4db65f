// Diagnostics as you type: every spec file of the workspace lives in a SpecIndex (open editors' text first, disk
// otherwise); an edit re-parses that file after a short pause and publishes what changed, cross-file problems
// included, into the collection the `Validate Workspace Specs` command also fills.
import { existsSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import * as vscode from 'vscode';
import { isSpecFileName } from '../../core/spec/kinds.js';
import type { Problem } from '../../core/spec/problems.js';
import { toDiagnostic } from '../specs/problemDiagnostics.js';
import { excludedFolders, specFileGlob } from '../specs/specFiles.js';
import { takeOverWorkspaceValidation, type SpecValidationSummary } from '../specs/validateWorkspaceSpecs.js';
import { SpecIndex, type ValidationState } from './specIndex.js';

/** Long enough to skip the keystrokes of a word, short enough to feel immediate. */
export const typingPauseMs = 150;

export interface LiveSpecs {
  readonly index: SpecIndex;
  /** Fires with the files (fsPaths) whose problems changed. */
  readonly onDidChange: vscode.Event<string[]>;
  /** Re-reads every spec file of the workspace (open editors win over disk) and publishes the result. */
  refreshAll(token?: vscode.CancellationToken): Promise<SpecValidationSummary>;
  /** Makes sure a spec file is in the index (a file created a moment ago may not have reached the watcher yet). */
  ensure(uri: vscode.Uri): Promise<void>;
  /** Validates one document now, without waiting for the typing pause. */
  validateNow(document: vscode.TextDocument): void;
  state(uri: vscode.Uri): ValidationState | undefined;
  problems(uri: vscode.Uri): Problem[];
}

export function isSpecDocument(document: vscode.TextDocument): boolean {
  return document.uri.scheme === 'file' && isSpecFileName(document.uri.fsPath);
}

export function activateLiveDiagnostics(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, diagnostics: vscode.DiagnosticCollection): LiveSpecs {
  const index = workspaceSpecIndex();
  const changed = new vscode.EventEmitter<string[]>();
  const timers = new Map<string, NodeJS.Timeout>();
  const live: LiveIndex = { index, publish: (updates) => publishProblems(diagnostics, changed, updates) };
  const validateNow = (document: vscode.TextDocument): void => validateDocument(live, timers, document);
  const schedule = (document: vscode.TextDocument): void => scheduleValidation(timers, document, validateNow);
  const refreshAll = (token?: vscode.CancellationToken): Promise<SpecValidationSummary> => refreshWorkspaceSpecs(live, log, token);

  const watcher = vscode.workspace.createFileSystemWatcher(specFileGlob);
  context.subscriptions.push(
    takeOverWorkspaceValidation(refreshAll),
    changed,
    watcher,
    ...followSpecChanges(watcher, live, validateNow, schedule),
    { dispose: () => timers.forEach((t) => clearTimeout(t)) },
  );

  void refreshAll().catch((err: unknown) => log.warn(`initial spec validation failed: ${err instanceof Error ? err.message : String(err)}`));

  return {
    index,
    onDidChange: changed.event,
    refreshAll,
    validateNow,
    ensure: (uri) => ensureIndexed(live, uri),
    state: (uri) => index.state(uri.fsPath),
    problems: (uri) => index.problems(uri.fsPath),
  };
}

/** What the handlers below share: the index, and how its changes reach the Problems panel. */
interface LiveIndex {
  readonly index: SpecIndex;
  publish(updates: Map<string, Problem[]>): void;
}

function workspaceSpecIndex(): SpecIndex {
  const folderOf = (file: string): string | undefined => vscode.workspace.getWorkspaceFolder(vscode.Uri.file(file))?.uri.fsPath;
  return new SpecIndex({
    resolve: (from, rel) => resolve(dirname(from), rel),
    existsOnDisk: (p) => existsSync(p),
    display: (p) => {
      const folder = folderOf(p);
      return folder ? relative(folder, p) : p;
    },
  });
}

function publishProblems(diagnostics: vscode.DiagnosticCollection, changed: vscode.EventEmitter<string[]>, updates: Map<string, Problem[]>): void {
  if (updates.size === 0) return;
  for (const [file, problems] of updates) diagnostics.set(vscode.Uri.file(file), problems.map(toDiagnostic));
  changed.fire([...updates.keys()]);
}

function validateDocument(live: LiveIndex, timers: Map<string, NodeJS.Timeout>, document: vscode.TextDocument): void {
  const file = document.uri.fsPath;
  const pending = timers.get(file);
  if (pending) clearTimeout(pending);
  timers.delete(file);
  live.index.set(file, document.getText());
  live.publish(live.index.recompute());
}

function scheduleValidation(timers: Map<string, NodeJS.Timeout>, document: vscode.TextDocument, validateNow: (document: vscode.TextDocument) => void): void {
  const file = document.uri.fsPath;
  const pending = timers.get(file);
  if (pending) clearTimeout(pending);
  timers.set(file, setTimeout(() => {
    timers.delete(file);
    // The document may have closed during the pause; its disk text is then what counts.
    if (!document.isClosed) validateNow(document);
  }, typingPauseMs));
}

function openDocument(file: string): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === file);
}

async function readFromDisk(index: SpecIndex, uri: vscode.Uri): Promise<boolean> {
  try {
    const text = new TextDecoder('utf-8').decode(await vscode.workspace.fs.readFile(uri));
    index.set(uri.fsPath, text);
    return true;
  } catch {
    return false;
  }
}

async function refreshWorkspaceSpecs(live: LiveIndex, log: vscode.LogOutputChannel, token?: vscode.CancellationToken): Promise<SpecValidationSummary> {
  const { index } = live;
  const read = await readWorkspaceSpecs(index, token);
  // Only a refresh that saw every file knows which are gone. A cancelled one leaves the files it did not reach as
  // they were: dropping them would take their diagnostics and test items away until the next file event.
  if (read.complete) dropUnseen(index, read.seen);
  live.publish(index.recompute());
  return summarize(index, log);
}

/** What a refresh read: the spec files it put into the index, and whether that is all of them (not cancelled). */
interface WorkspaceRead {
  seen: Set<string>;
  complete: boolean;
}

/** Puts every spec file of the workspace into the index (an open editor's text over the disk's), until cancelled. */
async function readWorkspaceSpecs(index: SpecIndex, token?: vscode.CancellationToken): Promise<WorkspaceRead> {
  const uris = await vscode.workspace.findFiles(specFileGlob, excludedFolders, undefined, token);
  const seen = new Set<string>();
  for (const uri of uris) {
    if (token?.isCancellationRequested) break;
    seen.add(uri.fsPath);
    const doc = openDocument(uri.fsPath);
    if (doc) index.set(uri.fsPath, doc.getText());
    else await readFromDisk(index, uri);
  }
  // Asked after the loop: a search cancelled before it began returns no files at all, as if there were none.
  const complete = !token?.isCancellationRequested;
  // Open spec documents outside the search (e.g. in an excluded folder) keep their diagnostics.
  for (const doc of vscode.workspace.textDocuments) {
    if (isSpecDocument(doc) && !seen.has(doc.uri.fsPath)) {
      seen.add(doc.uri.fsPath);
      index.set(doc.uri.fsPath, doc.getText());
    }
  }
  return { seen, complete };
}

/** Removes the index entries of files a complete refresh did not find: they were deleted or moved out of its search. */
function dropUnseen(index: SpecIndex, seen: Set<string>): void {
  for (const file of index.fileNames()) if (!seen.has(file)) index.delete(file);
}

/** Counts the index's problems and logs each of them, then the totals. */
function summarize(index: SpecIndex, log: vscode.LogOutputChannel): SpecValidationSummary {
  const summary: SpecValidationSummary = { files: 0, filesWithProblems: 0, errors: 0, warnings: 0 };
  for (const file of index.fileNames()) {
    const problems = index.problems(file);
    summary.files++;
    if (problems.length > 0) summary.filesWithProblems++;
    for (const p of problems) {
      if (p.severity === 'error') summary.errors++;
      else summary.warnings++;
      log.info(`${vscode.workspace.asRelativePath(p.file, false)}:${p.line}:${p.column}: ${p.severity}: ${p.message}`);
    }
  }
  log.info(`validated ${summary.files} spec file(s): ${summary.errors} error(s), ${summary.warnings} warning(s)`);
  return summary;
}

/** The watcher's and the editors' events, in the order they are subscribed: each re-validates what it changed. */
function followSpecChanges(
  watcher: vscode.FileSystemWatcher,
  live: LiveIndex,
  validateNow: (document: vscode.TextDocument) => void,
  schedule: (document: vscode.TextDocument) => void,
): vscode.Disposable[] {
  const { index, publish } = live;
  const onDisk = async (uri: vscode.Uri): Promise<void> => {
    if (uri.scheme !== 'file' || /[\\/](node_modules|\.git)[\\/]/.test(uri.fsPath)) return;
    // An open editor's text is newer than the disk's until it is saved.
    if (openDocument(uri.fsPath)) return;
    if (await readFromDisk(index, uri)) publish(index.recompute());
  };
  return [
    watcher.onDidCreate(onDisk),
    watcher.onDidChange(onDisk),
    watcher.onDidDelete((uri) => {
      if (index.delete(uri.fsPath)) publish(index.recompute());
    }),
    vscode.workspace.onDidOpenTextDocument((d) => {
      if (isSpecDocument(d)) validateNow(d);
    }),
    vscode.workspace.onDidChangeTextDocument((e) => {
      if (isSpecDocument(e.document) && e.contentChanges.length > 0) schedule(e.document);
    }),
    vscode.workspace.onDidCloseTextDocument(async (d) => {
      if (!isSpecDocument(d)) return;
      // Unsaved edits are gone with the editor: the file on disk is the spec again.
      const ok = await readFromDisk(index, d.uri);
      if (!ok) index.delete(d.uri.fsPath);
      publish(index.recompute());
    }),
  ];
}

/** Makes sure a spec file is in the index (open editor first, then disk) and publishes when it was added. */
async function ensureIndexed(live: LiveIndex, uri: vscode.Uri): Promise<void> {
  const { index } = live;
  if (index.has(uri.fsPath)) return;
  const doc = openDocument(uri.fsPath);
  if (doc) index.set(uri.fsPath, doc.getText());
  else if (!(await readFromDisk(index, uri))) return;
  live.publish(index.recompute());
}
