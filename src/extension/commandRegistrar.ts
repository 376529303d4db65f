import * as vscode from 'vscode';

/**
 * Registers one command. Its handler may type its parameters (`never[]` accepts any list): command arguments come
 * from menus, the palette, webviews and tests untyped, so each handler checks what it was given.
 */
export type RegisterCommand = (id: string, fn: (...args: never[]) => unknown) => void;

/** Registers commands for the extension's lifetime: each registration is disposed with the context. */
export function commandRegistrar(context: Pick<vscode.ExtensionContext, 'subscriptions'>): RegisterCommand {
  return (id, fn) => void context.subscriptions.push(vscode.commands.registerCommand(id, fn));
}
