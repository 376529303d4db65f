// Where a new Coevolve panel opens. A panel never covers what the user was reading: the spec, the walkthrough's next
// step, or the dashboard whose table they are working through. VS Code's own "Open to the Side" (Markdown preview,
// a walkthrough's files) is the model: beside the active editor, and in the group that already shows its kind.
import * as vscode from 'vscode';

/** The column of the first panel that has one (a disposed or not-yet-shown panel has none). */
function columnOf(panels: readonly vscode.WebviewPanel[], except?: vscode.ViewColumn): vscode.ViewColumn | undefined {
  return panels.map((p) => p.viewColumn).find((c): c is vscode.ViewColumn => c !== undefined && c !== except);
}

/**
 * A dashboard of a run not shown yet: with the other dashboards (tabs of one group, as a run picker would be);
 * else beside whatever the active group shows; else, the editor area being empty, in the active group (full width).
 */
export function dashboardColumn(openDashboards: readonly vscode.WebviewPanel[]): vscode.ViewColumn {
  const withDashboards = columnOf(openDashboards);
  if (withDashboards !== undefined) return withDashboards;
  return vscode.window.tabGroups.activeTabGroup.tabs.length > 0 ? vscode.ViewColumn.Beside : vscode.ViewColumn.Active;
}

/**
 * A rollout not shown yet. Opened from a dashboard (or while one is the active editor): in the group that shows the
 * other rollouts, if that is not the dashboard's, else beside the dashboard, so its table stays on screen for the
 * next pick. Otherwise in the active group, as a file opens from the Explorer.
 */
export function rolloutColumn(dashboard: vscode.WebviewPanel | undefined, openRollouts: readonly vscode.WebviewPanel[]): vscode.ViewColumn {
  if (!dashboard?.viewColumn) return vscode.ViewColumn.Active;
  return columnOf(openRollouts, dashboard.viewColumn) ?? vscode.ViewColumn.Beside;
}
