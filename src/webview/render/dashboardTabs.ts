// The dashboard's tabs after the first one (lineage, rollouts, compare), loaded with import() once the first tab is
// drawn or when one of them is opened: the first screen (verdict and charts) waits for none of this code. Here too
// the custom elements only these tabs use (the rollout table with its virtualizer, vscode-button).
import '@vscode-elements/elements/dist/vscode-button/index.js';
import './rolloutTableView.js';

export { compareTable } from './comparePanel.js';
export { aimByMoveTable, lineageDetail, lineageTree, type LineageHandlers } from './lineagePanel.js';
