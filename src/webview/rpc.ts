// The webview side of protocol.ts: typed requests with pending promises keyed by id, fire-and-forget commands,
// validated notifications, and the panel state kept across reloads. The same apps run in three hosts; only the
// transport differs: VS Code's webview API, `coevolve view`'s HTTP server, or a static bundle's files
// (browserTransport.ts). Every host message is validated here whatever carried it.
// First: it records CSP violations, whichever app or page imports this channel.
import './render/cspWatch.js';
import { parseHostMessage } from './hostMessage.js';
import type { CommandMethod, CommandParamsOf, NotificationMethod, NotificationParamsOf, RequestMethod, RequestParamsOf, RequestResults } from './protocol.js';
import { browserTransport, type HostTransport } from './browserTransport.js';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

type NotificationHandler = <M extends NotificationMethod>(method: M, params: NotificationParamsOf<M>) => void;

function vscodeTransport(): HostTransport {
  const api = acquireVsCodeApi();
  return {
    kind: 'vscode',
    post: (m) => api.postMessage(m),
    onMessage: (deliver) => window.addEventListener('message', (event: MessageEvent) => deliver(event.data)),
    getState: () => api.getState(),
    setState: (s) => api.setState(s),
    can: () => true,
  };
}

/** The transport of the page: VS Code's when the webview API is there, else the browser host the page names. */
export function pageTransport(): HostTransport {
  return typeof (globalThis as { acquireVsCodeApi?: unknown }).acquireVsCodeApi === 'function' ? vscodeTransport() : browserTransport();
}

export class HostChannel {
  private readonly transport: HostTransport;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly handlers = new Set<NotificationHandler>();

  constructor(transport: HostTransport = pageTransport()) {
    this.transport = transport;
    this.transport.onMessage((raw) => this.receive(raw));
  }

  /** Which host the page runs in: 'vscode', 'http' (`coevolve view`) or 'static' (a bundle). */
  get host(): HostTransport['kind'] {
    return this.transport.kind;
  }

  private receive(raw: unknown): void {
    const m = parseHostMessage(raw);
    if (!m) return; // not ours, or malformed: ignored rather than trusted
    if (m.kind === 'notification') {
      for (const h of this.handlers) h(m.method as NotificationMethod, m.params as never);
      return;
    }
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    if (m.ok) p.resolve(m.result);
    else p.reject(new Error(m.error));
  }

  request<M extends RequestMethod>(method: M, params: RequestParamsOf<M>): Promise<RequestResults[M]> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.transport.post({ kind: 'request', id, method, params });
    });
  }

  command<M extends CommandMethod>(method: M, params: CommandParamsOf<M>): void {
    this.transport.post({ kind: 'command', method, params });
  }

  /**
   * Whether the host carries out a command (a browser host is read-only: no re-run, no replay, no files), or
   * answers a write request (`curation/apply`: `coevolve view --allow-curation` only).
   */
  can(method: CommandMethod | RequestMethod): boolean {
    return this.transport.can(method);
  }

  ready(): void {
    this.transport.post({ kind: 'ready' });
  }

  onNotification(handler: NotificationHandler): void {
    this.handlers.add(handler);
  }

  getState<T>(): T | undefined {
    return (this.transport.getState() as T | undefined) ?? undefined;
  }

  setState(state: unknown): void {
    this.transport.setState(state);
  }
}

/** The state the host put in the page (`data-state`), used when VS Code has no saved state yet. */
export function initialState<T>(element: HTMLElement): T | undefined {
  const raw = element.dataset['state'];
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return undefined;
  }
}
