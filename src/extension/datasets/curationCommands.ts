import { existsSync } from 'node:fs';
import { userInfo } from 'node:os';
import * as vscode from 'vscode';
import { appendCuration, readCuration, curationKey, type CurationAction, type CurationEntry } from '../../store/curation.js';
import { runLayout } from '../../store/layout.js';
import { curationSubject, type CurationSubject } from './curationTarget.js';
import type { DatasetTreeProvider } from './datasetView.js';

/** What the curation commands act through; `activeRollout` is the focused rollout viewer's rollout, if any. */
export interface Curation {
  provider: DatasetTreeProvider;
  log: vscode.LogOutputChannel;
  activeRollout: () => { runDir: string; rolloutId: string } | undefined;
}

/** Accept, Reject, Clear, Label, Comment, and the state query the viewer and tests use, registered in that order. */
export function registerCurationCommands(register: (id: string, fn: (...args: unknown[]) => unknown) => void, curation: Curation): void {
  const { provider } = curation;
  const record = (action: CurationAction, args: unknown[], extra: Partial<CurationEntry> = {}): Promise<CurationEntry | undefined> => recordCuration(curation, action, args, extra);
  const resolveSubject = (args: unknown[]): CurationSubject | undefined => resolveCurationSubject(args, curation.activeRollout);
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
}

function author(): string {
  try {
    return userInfo().username;
  } catch {
    return 'editor';
  }
}

/** Resolves the subject (asking for nothing: the command's argument or the open rollout file) and appends. */
async function recordCuration(curation: Curation, action: CurationAction, args: unknown[], extra: Partial<CurationEntry> = {}): Promise<CurationEntry | undefined> {
  const subject = resolveCurationSubject(args, curation.activeRollout);
  if (!subject) return undefined;
  const entry: CurationEntry = { at: new Date().toISOString(), target: subject.target, action, author: author(), ...extra };
  await appendCuration(subject.runDir, [entry]);
  curation.log.info(`curation: ${action} ${subject.target.kind} ${subject.target.id}${entry.label ? ` "${entry.label}"` : ''} in ${subject.runDir}`);
  curation.provider.invalidate(subject.runDir);
  return entry;
}

function resolveCurationSubject(args: unknown[], activeRollout: Curation['activeRollout']): CurationSubject | undefined {
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
