import { isAbsolute } from 'node:path';
import * as vscode from 'vscode';
import { readSettings } from '../settings.js';
import { RunRegistry } from '../../viewdata/runRegistry.js';

/**
 * Watches `<runsFolder>/*\/events.jsonl` and `manifest.json` in every workspace folder and tells the registry, which
 * reads only the appended bytes. Bursts (a generation finishing writes many events) are debounced per run.
 * A deleted run folder (`<runsFolder>/*`) is a refresh too, which makes the registry forget it. A slow poll notices
 * what no event says: a writer that died without a last event, and an opened run whose folder went unseen (a
 * watcher may report only the top folder of a deleted tree).
 */
export function watchRuns(registry: RunRegistry, debounceMs = 150): vscode.Disposable {
  const timers = new Map<string, NodeJS.Timeout>();
  const schedule = (dir: string): void => {
    clearTimeout(timers.get(dir));
    timers.set(dir, setTimeout(() => {
      timers.delete(dir);
      registry.refresh(dir);
    }, debounceMs));
  };
  const disposables: vscode.Disposable[] = [];
  const watch = (): void => {
    for (const d of disposables.splice(0)) d.dispose();
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      const runsFolder = readSettings(folder.uri).runsFolder;
      for (const file of ['events.jsonl', 'manifest.json']) {
        const w = vscode.workspace.createFileSystemWatcher(patternIn(folder, runsFolder, `*/${file}`));
        const ofFile = (uri: vscode.Uri): void => schedule(RunRegistry.runDirOf(uri.fsPath));
        disposables.push(w, w.onDidChange(ofFile), w.onDidCreate(ofFile), w.onDidDelete(ofFile));
      }
      const runFolders = vscode.workspace.createFileSystemWatcher(patternIn(folder, runsFolder, '*'), true, true, false);
      disposables.push(runFolders, runFolders.onDidDelete((uri) => schedule(uri.fsPath)));
    }
  };
  watch();
  const poll = setInterval(() => {
    // Deletions no event named: one read per runs folder, one check per opened run outside them. Then only opened
    // runs can be marked running (rows() opens every running run it lists).
    registry.forgetGone();
    for (const e of registry.opened()) if (e.live?.run.status === 'running') registry.refresh(e.dir);
  }, 5_000);
  const folders = vscode.workspace.onDidChangeWorkspaceFolders(watch);
  const config = vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration('coevolve.runsFolder')) watch();
  });
  return new vscode.Disposable(() => {
    clearInterval(poll);
    for (const t of timers.values()) clearTimeout(t);
    for (const d of disposables) d.dispose();
    folders.dispose();
    config.dispose();
  });
}

/** A glob under a workspace folder's runs folder (`coevolve.runsFolder`, relative to the folder or absolute). */
function patternIn(folder: vscode.WorkspaceFolder, runsFolder: string, glob: string): vscode.RelativePattern {
  // Inside the workspace the workbench's own recursive watcher serves the pattern; outside it gets its own.
  return isAbsolute(runsFolder)
    ? new vscode.RelativePattern(vscode.Uri.file(runsFolder), glob)
    : new vscode.RelativePattern(folder, `${runsFolder.replace(/\\/g, '/').replace(/\/$/, '')}/${glob}`);
}
