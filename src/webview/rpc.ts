// The webview side of protocol.ts: typed requests with pending promises keyed by id, fire-and-forget commands,
// validated notifications, and the panel state VS Code keeps across reloads.
import {
  parseHostMessage, type CommandMethod, type CommandParamsOf, type NotificationMethod, type NotificationParamsOf, type RequestMethod,
  type RequestParamsOf, type RequestResults,
} from './protocol.js';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

type NotificationHandler = <M extends NotificationMethod>(method: M, params: NotificationParamsOf<M>) => void;

export class HostChannel {
  private readonly api: VsCodeApi;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly handlers = new Set<NotificationHandler>();

  constructor() {
    this.api = acquireVsCodeApi();
    window.addEventListener('message', (event: MessageEvent) => this.receive(event.data));
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
      this.api.postMessage({ kind: 'request', id, method, params });
    });
  }

  command<M extends CommandMethod>(method: M, params: CommandParamsOf<M>): void {
    this.api.postMessage({ kind: 'command', method, params });
  }

  ready(): void {
    this.api.postMessage({ kind: 'ready' });
  }

  onNotification(handler: NotificationHandler): void {
    this.handlers.add(handler);
  }

  getState<T>(): T | undefined {
    return (this.api.getState() as T | undefined) ?? undefined;
  }

  setState(state: unknown): void {
    this.api.setState(state);
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
