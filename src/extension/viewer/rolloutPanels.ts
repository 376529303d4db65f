import * as vscode from 'vscode';
import type { RunEvent } from '../../core/ports/runStore.js';
import type { RunRegistry } from '../../viewdata/runRegistry.js';
import type { HostMessage, RolloutRef } from '../../webview/protocol.js';
import { rolloutPanelStateSchema } from '../../webview/protocolSchemas.js';
import { ViewData } from '../../viewdata/viewRequests.js';
import { rolloutColumn } from './panelPlacement.js';
import { connectWebview, dispatch, notify, renderApp, type WebviewEndpoint } from './webviewHost.js';

export const rolloutViewType = 'coevolve.rollout';

export interface RolloutActions {
  rerun(ref: RolloutRef): Promise<void> | void;
  replay(ref: RolloutRef): Promise<void> | void;
  openFile(path: string): Promise<void> | void;
  /** Runs a curation command (coevolve.curation.<action>) on the rollout. */
  curate(ref: RolloutRef, action: 'accept' | 'reject' | 'clear' | 'label' | 'comment'): PromiseLike<unknown> | void;
}

interface OpenPanel {
  ref: RolloutRef;
  panel: vscode.WebviewPanel;
  endpoint: WebviewEndpoint;
}

const keyOf = (ref: RolloutRef): string => `${ref.runDir}#${ref.rolloutId}`;

/**
 * One panel per rollout (opening it again reveals the same panel). Panels come back after a window reload through
 * the serializer with the state the webview saved (`setState`: rollout, step, tab). A rollout that is still running
 * shows as such and is re-sent when its `rollout.finished` event arrives.
 */
export class RolloutPanels implements vscode.Disposable {
  private readonly open = new Map<string, OpenPanel>();
  private readonly subscriptions: vscode.Disposable[] = [];
  private readonly data: ViewData;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly registry: RunRegistry,
    private readonly actions: RolloutActions,
    private readonly log: vscode.LogOutputChannel,
    data?: ViewData,
  ) {
    this.data = data ?? new ViewData(registry);
    const changes = registry.onDidChange((dir, events) => this.onRunChanged(dir, events));
    const removals = registry.onDidRemove((dir) => this.onRunRemoved(dir));
    this.subscriptions.push(
      new vscode.Disposable(() => changes.dispose()),
      new vscode.Disposable(() => removals.dispose()),
      vscode.window.registerWebviewPanelSerializer(rolloutViewType, {
        deserializeWebviewPanel: async (panel, state: unknown) => {
          const parsed = rolloutPanelStateSchema.safeParse(state);
          if (!parsed.success) {
            panel.dispose(); // nothing to restore from (a state written by another version)
            return;
          }
          const { runDir, generation, rolloutId, step } = parsed.data;
          this.attach(panel, { runDir, generation, rolloutId }, step);
        },
      }),
    );
  }

  /** Opens (or reveals) a rollout at a step; `dashboard` is the dashboard it was picked from, which it must not cover. */
  show(ref: RolloutRef, step?: number, dashboard?: vscode.WebviewPanel): vscode.WebviewPanel {
    const existing = this.open.get(keyOf(ref));
    if (existing) {
      existing.panel.reveal(undefined, false);
      if (step !== undefined) void notify(existing.panel.webview, 'view/goToStep', { step });
      return existing.panel;
    }
    const column = rolloutColumn(dashboard, [...this.open.values()].map((p) => p.panel));
    const panel = vscode.window.createWebviewPanel(rolloutViewType, ref.rolloutId, column, { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview')] });
    this.attach(panel, ref, step);
    return panel;
  }

  private attach(panel: vscode.WebviewPanel, ref: RolloutRef, step?: number): void {
    panel.title = ref.rolloutId;
    renderApp(panel.webview, this.extensionUri, 'rolloutViewer', 'coevolve-rollout-viewer', `Rollout ${ref.rolloutId}`, { ...ref, ...(step !== undefined ? { step } : {}) });
    const endpoint: WebviewEndpoint = {
      requests: {
        // The tab is named once the view is read (names.ts rolloutTabTitle); until then it shows the rollout's id.
        'rollout/get': (p) => {
          const view = this.data.handlers['rollout/get'](p);
          if (view.tabTitle && panel.title !== view.tabTitle) panel.title = view.tabTitle;
          return view;
        },
      },
      commands: {
        'rollout/open': (p) => void this.show({ runDir: p.runDir, generation: p.generation, rolloutId: p.rolloutId }, p.step),
        'rollout/rerun': (p) => this.actions.rerun(p),
        'rollout/replay': (p) => this.actions.replay(p),
        'file/open': (p) => this.actions.openFile(p.path),
        'rollout/curate': async (p) => {
          await this.actions.curate({ runDir: p.runDir, generation: p.generation, rolloutId: p.rolloutId }, p.action);
          void notify(panel.webview, 'rollout/changed', ref); // the viewer asks again and shows the new state
        },
        'state/changed': () => undefined,
      },
    };
    const entry: OpenPanel = { ref, panel, endpoint };
    this.open.set(keyOf(ref), entry);
    const listener = connectWebview(panel.webview, endpoint, this.log);
    panel.onDidDispose(() => {
      listener.dispose();
      if (this.open.get(keyOf(ref)) === entry) this.open.delete(keyOf(ref));
    });
  }

  private onRunChanged(dir: string, events: RunEvent[]): void {
    for (const e of events) {
      if (e.type !== 'rollout.finished') continue;
      const p = this.open.get(`${dir}#${e.summary.id}`);
      if (p) void notify(p.panel.webview, 'rollout/changed', p.ref);
    }
  }

  /** Panels of a run whose folder is gone ask again, and are answered that it is gone (they keep no copy to show). */
  private onRunRemoved(dir: string): void {
    for (const p of this.open.values()) if (p.ref.runDir === dir) void notify(p.panel.webview, 'rollout/changed', p.ref);
  }

  /** The rollout of the panel that has the focus, so palette commands (Accept, Reject…) act on what is shown. */
  active(): RolloutRef | undefined {
    for (const p of this.open.values()) if (p.panel.active) return p.ref;
    return undefined;
  }

  /** Open panels, for the test API. */
  panels(): { ref: RolloutRef; panel: vscode.WebviewPanel }[] {
    return [...this.open.values()].map(({ ref, panel }) => ({ ref, panel }));
  }

  /** Answers a raw webview message for a panel exactly as the live channel would (test API). */
  answer(ref: RolloutRef, raw: unknown): Promise<HostMessage | undefined> {
    const p = this.open.get(keyOf(ref));
    if (!p) throw new Error(`no rollout panel for ${ref.rolloutId}`);
    return dispatch(p.endpoint, raw, this.log);
  }

  dispose(): void {
    for (const p of this.open.values()) p.panel.dispose();
    for (const s of this.subscriptions) s.dispose();
  }
}
