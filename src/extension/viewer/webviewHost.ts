import { readFileSync } from 'node:fs';
import * as vscode from 'vscode';
import { staticChunkImports } from '../../webview/chunkImports.js';
import { parseWebviewMessage } from '../../webview/protocolSchemas.js';
import type {
  CommandMethod, CommandParamsOf, HostMessage, NotificationMethod, NotificationParamsOf, RequestMethod, RequestParamsOf, RequestResults,
} from '../../webview/protocol.js';
import type { RequestHandlers } from '../../viewdata/viewRequests.js';
import { webviewHtml } from './webviewHtml.js';

export type { RequestHandlers };

export type CommandHandlers = { [M in CommandMethod]?: (params: CommandParamsOf<M>) => void | Promise<void> };

export interface WebviewEndpoint {
  requests: RequestHandlers;
  commands: CommandHandlers;
  onReady?: () => void;
}

/** Options for panels: scripts on, and only the webview bundle readable. */
export function panelOptions(extensionUri: vscode.Uri): vscode.WebviewPanelOptions & vscode.WebviewOptions {
  return { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist', 'webview')], enableFindWidget: false };
}

/** The chunks each app's script imports, read from the built script once (it does not change while the extension runs). */
const appChunks = new Map<string, string[]>();

function chunksOf(extensionUri: vscode.Uri, app: string): string[] {
  let chunks = appChunks.get(app);
  if (!chunks) {
    try {
      chunks = staticChunkImports(readFileSync(vscode.Uri.joinPath(extensionUri, 'dist', 'webview', `${app}.js`).fsPath, 'utf8'));
    } catch {
      chunks = []; // not readable here (a virtual file system): the script fetches its chunks itself
    }
    appChunks.set(app, chunks);
  }
  return chunks;
}

export function renderApp(webview: vscode.Webview, extensionUri: vscode.Uri, app: string, element: string, title: string, state: unknown): void {
  const asset = (name: string): string => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview', name)).toString();
  webview.options = panelOptions(extensionUri);
  webview.html = webviewHtml({ title, cspSource: webview.cspSource, scriptUri: asset(`${app}.js`), styleUris: [asset('codicon.css'), asset(`${app}.css`)], element, state, preloadUris: chunksOf(extensionUri, app).map(asset) });
}

/**
 * Handles one message from a webview: validates it (protocol.ts) before any handler sees it and returns the
 * response to post back (requests always get one: the result, or an error the panel shows).
 */
export async function dispatch(endpoint: WebviewEndpoint, raw: unknown, log: vscode.LogOutputChannel): Promise<HostMessage | undefined> {
  const parsed = parseWebviewMessage(raw);
  if (!parsed.ok) {
    log.warn(`webview: ${parsed.error}`);
    return parsed.id !== undefined ? { kind: 'response', id: parsed.id, ok: false, error: parsed.error } : undefined;
  }
  const m = parsed.message;
  if (m.kind === 'ready') {
    endpoint.onReady?.();
    return undefined;
  }
  if (m.kind === 'request') {
    const handler = endpoint.requests[m.method] as ((p: unknown) => unknown) | undefined;
    try {
      if (!handler) throw new Error(`this panel does not answer ${m.method}`);
      return { kind: 'response', id: m.id, ok: true, result: await handler(m.params) };
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      log.warn(`webview request ${m.method} failed: ${error}`);
      return { kind: 'response', id: m.id, ok: false, error };
    }
  }
  const handler = endpoint.commands[m.method] as ((p: unknown) => unknown) | undefined;
  try {
    await handler?.(m.params);
  } catch (err) {
    log.error(`webview command ${m.method} failed: ${err instanceof Error ? err.message : String(err)}`);
    void vscode.window.showErrorMessage(`Coevolve: ${err instanceof Error ? err.message : String(err)}`);
  }
  return undefined;
}

export function connectWebview(webview: vscode.Webview, endpoint: WebviewEndpoint, log: vscode.LogOutputChannel): vscode.Disposable {
  return webview.onDidReceiveMessage(async (raw: unknown) => {
    const reply = await dispatch(endpoint, raw, log);
    if (reply) void post(webview, reply);
  });
}

function post(webview: vscode.Webview, message: HostMessage): Thenable<boolean> {
  return webview.postMessage(message);
}

export function notify<M extends NotificationMethod>(webview: vscode.Webview, method: M, params: NotificationParamsOf<M>): Thenable<boolean> {
  return post(webview, { kind: 'notification', method, params });
}
