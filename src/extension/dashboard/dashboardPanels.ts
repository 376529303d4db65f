import * as vscode from 'vscode';
import type { RunRegistry } from '../../viewdata/runRegistry.js';
import type { HostMessage, RolloutRef } from '../../webview/protocol.js';
import { dashboardPanelStateSchema } from '../../webview/protocolSchemas.js';
import { dashboardColumn } from '../viewer/panelPlacement.js';
import { connectWebview, dispatch, notify, renderApp, type WebviewEndpoint } from '../viewer/webviewHost.js';
import { ViewData } from '../../viewdata/viewRequests.js';
import { runLabel } from '../../webview/names.js';

export const dashboardViewType = 'coevolve.dashboard';

interface OpenDashboard {
  runDir: string;
  panel: vscode.WebviewPanel;
  endpoint: WebviewEndpoint;
}

/** One dashboard per run; restored after reload by its serializer; told when its run (or the compared run) changes. */
export class DashboardPanels implements vscode.Disposable {
  private readonly open = new Map<string, OpenDashboard>();
  private readonly subscriptions: vscode.Disposable[] = [];
  private readonly data: ViewData;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly registry: RunRegistry,
    /** Opens a rollout picked in a dashboard, at a step (a search hit's), without covering that dashboard. */
    private readonly openRollout: (ref: RolloutRef, step: number | undefined, from: vscode.WebviewPanel) => void,
    private readonly log: vscode.LogOutputChannel,
    data?: ViewData,
  ) {
    this.data = data ?? new ViewData(registry);
    const changes = registry.onDidChange((dir, events) => {
      if (events.length === 0) return;
      for (const d of this.open.values()) void notify(d.panel.webview, 'run/changed', { runDir: dir });
    });
    // A run whose folder is gone: its dashboards (and those comparing with it) ask again and are told it is gone.
    const removals = registry.onDidRemove((dir) => {
      for (const d of this.open.values()) void notify(d.panel.webview, 'run/changed', { runDir: dir });
    });
    this.subscriptions.push(
      new vscode.Disposable(() => changes.dispose()),
      new vscode.Disposable(() => removals.dispose()),
      vscode.window.registerWebviewPanelSerializer(dashboardViewType, {
        deserializeWebviewPanel: async (panel, state: unknown) => {
          const parsed = dashboardPanelStateSchema.safeParse(state);
          if (!parsed.success) return panel.dispose();
          this.attach(panel, parsed.data.runDir, parsed.data.compareRunDir);
        },
      }),
    );
  }

  show(runDir: string, compareRunDir?: string): vscode.WebviewPanel {
    const existing = this.open.get(runDir);
    if (existing && !compareRunDir) {
      existing.panel.reveal(undefined, false);
      return existing.panel;
    }
    // A comparison replaces the run's dashboard in its place; any other opens where dashboardColumn says.
    const column = existing?.panel.viewColumn ?? dashboardColumn([...this.open.values()].map((d) => d.panel));
    existing?.panel.dispose();
    const panel = vscode.window.createWebviewPanel(dashboardViewType, 'Dashboard', column, { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview')] });
    this.attach(panel, runDir, compareRunDir);
    return panel;
  }

  private attach(panel: vscode.WebviewPanel, runDir: string, compareRunDir?: string): void {
    let name = runDir.split(/[\\/]/).pop() ?? runDir;
    try {
      // Runs of one config share a name: the tab says when it started, as the Runs tree does.
      name = runLabel(this.registry.get(runDir).manifest);
    } catch {
      // the webview shows the reader's error when it asks
    }
    panel.title = `Dashboard: ${name}`;
    renderApp(panel.webview, this.extensionUri, 'dashboard', 'coevolve-dashboard', panel.title, { runDir, ...(compareRunDir ? { compareRunDir } : {}) });
    const endpoint: WebviewEndpoint = {
      requests: {
        'dashboard/get': this.data.handlers['dashboard/get'],
        'runs/names': this.data.handlers['runs/names'],
        'rollouts/table': this.data.handlers['rollouts/table'],
        'rollouts/search': this.data.handlers['rollouts/search'],
        'rollout/get': this.data.handlers['rollout/get'],
        'spec/get': this.data.handlers['spec/get'],
      },
      commands: {
        'rollout/open': ({ step, ...ref }) => this.openRollout(ref, step, panel),
        'state/changed': () => undefined,
      },
    };
    const entry = { runDir, panel, endpoint };
    this.open.set(runDir, entry);
    const listener = connectWebview(panel.webview, endpoint, this.log);
    panel.onDidDispose(() => {
      listener.dispose();
      if (this.open.get(runDir) === entry) this.open.delete(runDir);
    });
  }

  /** The dashboard that is the active editor, if one is. */
  active(): vscode.WebviewPanel | undefined {
    return [...this.open.values()].find((d) => d.panel.active)?.panel;
  }

  panels(): { runDir: string; panel: vscode.WebviewPanel }[] {
    return [...this.open.values()].map(({ runDir, panel }) => ({ runDir, panel }));
  }

  answer(runDir: string, raw: unknown): Promise<HostMessage | undefined> {
    const d = this.open.get(runDir);
    if (!d) throw new Error(`no dashboard for ${runDir}`);
    return dispatch(d.endpoint, raw, this.log);
  }

  dispose(): void {
    for (const d of this.open.values()) d.panel.dispose();
    for (const s of this.subscriptions) s.dispose();
  }
}
