import { existsSync } from 'node:fs';
import { userInfo } from 'node:os';
import * as vscode from 'vscode';
import { appendCuration, readCuration, curationKey, type CurationAction, type CurationEntry } from '../../store/curation.js';
import { runLayout } from '../../store/layout.js';
import type { RegisterCommand } from '../commandRegistrar.js';
import { curationSubject, type CurationSubject } from './curationTarget.js';
import type { DatasetTreeProvider } from './datasetView.js';

/** What the curation commands act through; `activeRollout` is the focused rollout viewer's rollout, if any. */
export interface Curation {
  provider: DatasetTreeProvider;
  log: vscode.LogOutputChannel;
  activeRollout: () => { runDir: string; rolloutId: string } | undefined;
}

/** Accept, Reject, Clear, Label, Comment, and the state query the viewer and tests use, registered in that order. */
export function registerCurationCommands(register: RegisterCommand, curation: Curation): void {
  const { provider } = curation;
  // Each command resolves its subject once, before any prompt: what the user was asked about is what is recorded.
  const resolveSubject = (args: unknown[]): CurationSubject | undefined => resolveCurationSubject(args, curation.activeRollout);
  const record = (subject: CurationSubject, action: CurationAction, extra: Partial<CurationEntry> = {}): Promise<CurationEntry> => recordCuration(curation, subject, action, extra);
  const verdict = (action: CurationAction) => async (...args: unknown[]): Promise<CurationEntry | undefined> => {
    const subject = resolveSubject(args);
    return subject ? record(subject, action) : undefined;
  };
  register('coevolve.curation.accept', verdict('accept'));
  register('coevolve.curation.reject', verdict('reject'));
  register('coevolve.curation.clear', verdict('clear'));
  register('coevolve.curation.label', async (...args: unknown[]) => {
    const subject = resolveSubject(args);
    if (!subject) return undefined;
    // A third argument (the viewer, tests) gives the label; otherwise pick one used before or type a new one.
    const label = givenText(args) ?? (await pickLabel(provider));
    if (!label?.trim()) return undefined;
    return record(subject, 'label', { label: label.trim() });
  });
  register('coevolve.curation.comment', async (...args: unknown[]) => {
    const subject = resolveSubject(args);
    if (!subject) return undefined;
    const text = givenText(args) ?? (await vscode.window.showInputBox({ title: `Comment on ${subject.target.kind} ${subject.target.id}`, prompt: 'Kept in the run\'s curation.jsonl and shown in the Dataset view', ignoreFocusOut: true }));
    if (!text?.trim()) return undefined;
    return record(subject, 'comment', { text: text.trim() });
  });
  register('coevolve.curation.state', (...args: unknown[]) => {
    const subject = curationSubject(args[0], args[1]);
    return subject ? readCuration(subject.runDir).states.get(curationKey(subject.target)) : undefined;
  });
}

/** The label or comment text a caller passed as the third argument (runDir, rolloutId, text), if any. */
function givenText(args: unknown[]): string | undefined {
  return typeof args[2] === 'string' ? args[2] : undefined;
}

function author(): string {
  try {
    return userInfo().username;
  } catch {
    return 'editor';
  }
}

/** Appends one decision about a subject the command has resolved, and tells the Dataset view. */
async function recordCuration(curation: Curation, subject: CurationSubject, action: CurationAction, extra: Partial<CurationEntry> = {}): Promise<CurationEntry> {
  const entry: CurationEntry = { at: new Date().toISOString(), target: subject.target, action, author: author(), ...extra };
  await appendCuration(subject.runDir, [entry]);
  curation.log.info(`curation: ${action} ${subject.target.kind} ${subject.target.id}${entry.label ? ` "${entry.label}"` : ''} in ${subject.runDir}`);
  curation.provider.invalidate(subject.runDir);
  return entry;
}

/**
 * What a command acts on, asking for nothing: its arguments; with none, the focused rollout viewer's rollout; else
 * the rollout or environment file open in the editor. A warning when there is none, an error outside a run directory.
 */
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
