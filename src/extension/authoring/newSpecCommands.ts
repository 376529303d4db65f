// Coevolve: New Environment / New User / New Run Config — write a valid, commented spec into a folder and open it.
import * as vscode from 'vscode';
import { environmentScaffold, runScaffold, specIdFrom, userScaffold } from './scaffolds.js';
import type { RegisterCommand } from '../commandRegistrar.js';

type Kind = 'environment' | 'user' | 'run';

const suffix: Record<Kind, string> = { environment: '.env.yaml', user: '.user.yaml', run: '.run.yaml' };
const scaffold: Record<Kind, (id: string) => string> = { environment: environmentScaffold, user: userScaffold, run: runScaffold };
const defaultId: Record<Kind, string> = { environment: 'my-task', user: 'my-user', run: 'my-run' };

/**
 * Creates `<folder>/<id><suffix>`; `folder` and `name` are asked for when not given (tests and menus pass them).
 * Resolves with the new file's URI, or undefined when the user cancelled.
 */
export async function createSpec(kind: Kind, folder?: vscode.Uri, name?: string): Promise<vscode.Uri | undefined> {
  const target = folder ?? (await pickFolder());
  if (!target) return undefined;
  const typed = name ?? (await vscode.window.showInputBox({
    title: kind === 'run' ? 'New run config' : `New ${kind}`,
    prompt: `A name for the ${kind === 'run' ? 'run config' : kind} (lowercase letters, digits, ".", "_", "-"); the file is <name>${suffix[kind]}`,
    value: defaultId[kind],
    validateInput: (v) => (specIdFrom(v) === 'new-spec' && v.trim() !== 'new-spec' ? 'use letters or digits' : undefined),
  }));
  if (typed === undefined) return undefined;
  const id = specIdFrom(typed);
  const uri = vscode.Uri.joinPath(target, `${id}${suffix[kind]}`);
  try {
    await vscode.workspace.fs.stat(uri);
    throw new Error(`${vscode.workspace.asRelativePath(uri, false)} already exists; choose another id or open the existing file`);
  } catch (err) {
    if (!(err instanceof vscode.FileSystemError) || err.code !== 'FileNotFound') throw err;
  }
  await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(scaffold[kind](id)));
  await vscode.window.showTextDocument(uri, { preview: false });
  return uri;
}

async function pickFolder(): Promise<vscode.Uri | undefined> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (folders.length === 0) {
    void vscode.window.showErrorMessage('Coevolve: open a folder first; new specs are written into the workspace.');
    return undefined;
  }
  // Next to the spec being edited, if any; else the first workspace folder.
  const active = vscode.window.activeTextEditor?.document.uri;
  if (active?.scheme === 'file' && vscode.workspace.getWorkspaceFolder(active)) return vscode.Uri.joinPath(active, '..');
  if (folders.length === 1) return folders[0]!.uri;
  const picked = await vscode.window.showWorkspaceFolderPick({ placeHolder: 'Folder for the new spec' });
  return picked?.uri;
}

export function registerNewSpecCommands(register: RegisterCommand): void {
  const wrap = (kind: Kind) => async (folder?: unknown, name?: unknown): Promise<vscode.Uri | undefined> => {
    try {
      return await createSpec(kind, folder instanceof vscode.Uri ? await asFolder(folder) : undefined, typeof name === 'string' ? name : undefined);
    } catch (err) {
      void vscode.window.showErrorMessage(`Coevolve: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    }
  };
  register('coevolve.newEnvironment', wrap('environment'));
  register('coevolve.newUser', wrap('user'));
  register('coevolve.newRunConfig', wrap('run'));
}

/** A URI from the Explorer's context menu may be a file; its folder is meant. */
async function asFolder(uri: vscode.Uri): Promise<vscode.Uri> {
  try {
    const stat = await vscode.workspace.fs.stat(uri);
    return stat.type & vscode.FileType.Directory ? uri : vscode.Uri.joinPath(uri, '..');
  } catch {
    return uri;
  }
}
