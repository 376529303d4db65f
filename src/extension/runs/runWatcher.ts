import { isAbsolute } from 'node:path';
import * as vscode from 'vscode';
import { readSettings } from '../settings.js';
import { RunRegistry } from '../../viewdata/runRegistry.js';

/**
 * Watches `<runsFolder>/*\/events.jsonl` and `manifest.json` in every workspace folder and tells the registry, which
 * reads only the appended bytes. Bursts (a generation finishing writes many events) are debounced per run.
 * While a run is marked running, a slow poll also notices a writer that died without a last event.
 */
export function watchRuns(registry: RunRegistry, debounceMs = 150): vscode.Disposable {
  const timers = new Map<string, NodeJS.Timeout>();
  const schedule = (uri: vscode.Uri): void => {
    const dir = RunRegistry.runDirOf(uri.fsPath);
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
        // Inside the workspace the workbench's own recursive watcher serves the pattern; outside it gets its own.
        const pattern = isAbsolute(runsFolder)
          ? new vscode.RelativePattern(vscode.Uri.file(runsFolder), `*/${file}`)
          : new vscode.RelativePattern(folder, `${runsFolder.replace(/\\/g, '/').replace(/\/$/, '')}/*/${file}`);
        const w = vscode.workspace.createFileSystemWatcher(pattern);
        disposables.push(w, w.onDidChange(schedule), w.onDidCreate(schedule), w.onDidDelete(schedule));
      }
    }
  };
  watch();
  const poll = setInterval(() => {
    // Only opened runs can be marked running (rows() opens every running run it lists).
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
