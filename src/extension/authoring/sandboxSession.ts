// Glue shared by everything in the editor that runs an environment: workspace trust, the configured backend,
// VS Code's cancellation token as the core's AbortSignal, and disposing the backend afterwards.
import * as vscode from 'vscode';
import type { SandboxBackend } from '../../core/ports/sandbox.js';
import { editorSandbox, parseBackendSetting } from './editorSandbox.js';

/** Why running is refused in this workspace, or undefined when it is allowed. */
export function runRefusal(): string | undefined {
  return vscode.workspace.isTrusted
    ? undefined
    : 'this workspace is not trusted, and running an environment executes its scripts. Trust the workspace (Manage Workspace Trust) to validate, play or evolve; viewing and editing specs works as is.';
}

export function abortSignalOf(token: vscode.CancellationToken): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  if (token.isCancellationRequested) controller.abort();
  const sub = token.onCancellationRequested(() => controller.abort());
  return { signal: controller.signal, dispose: () => sub.dispose() };
}

/** Runs `work` with a backend for `images` chosen by the `coevolve.sandbox.backend` setting; always disposes it. */
export async function withSandbox<T>(images: string[], log: vscode.LogOutputChannel, work: (backend: SandboxBackend, reason: string) => Promise<T>): Promise<T> {
  const refusal = runRefusal();
  if (refusal) throw new Error(refusal);
  const setting = parseBackendSetting(vscode.workspace.getConfiguration('coevolve').get('sandbox.backend'));
  const choice = await editorSandbox(setting, images, (m) => log.warn(m));
  log.info(`sandbox: ${choice.name} (${choice.reason})`);
  try {
    return await work(choice.backend, choice.reason);
  } finally {
    await choice.backend.dispose().catch((err: unknown) => log.warn(`sandbox cleanup: ${err instanceof Error ? err.message : String(err)}`));
  }
}

/** The text of a file: the open editor's (possibly unsaved) text first, else the disk's. */
export async function currentText(uri: vscode.Uri): Promise<string> {
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (open) return open.getText();
  return new TextDecoder('utf-8').decode(await vscode.workspace.fs.readFile(uri));
}
