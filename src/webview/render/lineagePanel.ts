// The lineage of environments and users as a tree of buttons (keyboard and mouse), each with its human name, the
// operator that made it, its last success with counts, design and measured difficulty; a chosen node opens its
// detail (what its change was, in knobs, then the diff) beside the tree.
import { html, nothing, type TemplateResult } from 'lit';
import { aimLabel, designLevelLabel, difficultyScales, measuredLabel, operatorLabel, successLabel } from '../names.js';
import type { ChildAim, DashboardView, LineageNode, SpecView } from '../protocol.js';
import { generationsLabel, rejectedGroups, type RejectedGroup } from './rejectedChildren.js';
import { specPanel } from './specPanel.js';

export interface LineageHandlers {
  select(node: LineageNode): void;
  showRollouts(node: LineageNode): void;
}

/** Where the steering aimed a child and where its screening plays put it: the controller's aim, child by child. */
function aimTag(aim: ChildAim | undefined): TemplateResult | typeof nothing {
  if (!aim) return nothing;
  const { text, title } = aimLabel(aim);
  return html`<span class="dim aim" title=${title}>${text}</span>`;
}

function nodeLine(n: LineageNode, retiredPairs: number, selected: boolean, h: LineageHandlers): TemplateResult {
  const icon = n.kind === 'environment' ? 'server-environment' : 'account';
  const played = n.lastPlayed;
  return html`<button class="lineage-node ${selected ? 'selected' : ''}" data-id=${n.id} aria-pressed=${selected ? 'true' : 'false'} @click=${() => h.select(n)}>
    <span class="codicon codicon-${icon}"></span>
    <b class="node-name">${n.name ?? n.id}</b>
    ${n.operator ? html`<span class="op">${operatorLabel(n.operator)}</span>` : html`<span class="op seed">seed</span>`}
    <span class="dim">g${n.generation}</span>
    ${aimTag(n.aim)}
    ${played
      ? html`<span class="rate" title=${`its ${played.pairs} pair(s) in generation ${played.generation}`}>${played.plays !== undefined && played.successes !== undefined ? successLabel(played.successes, played.plays) : `${Math.round(played.successRate * 100)} %`} <span class="dim">in g${played.generation}</span></span>`
      : html`<span class="dim">not played yet</span>`}
    ${n.difficulty !== undefined ? html`<span class="dim" title=${difficultyScales.design}>${designLevelLabel(n.difficulty)}</span>` : nothing}
    ${n.measured ? html`<span class="dim" title=${`${difficultyScales.measured}. From ${n.measured.plays} plays, fitted in generation ${n.measured.generation}.`}>${measuredLabel(n.measured.value, n.measured.se)}</span>` : nothing}
    ${retiredPairs > 0 ? html`<span class="tag">${retiredPairs} pair${retiredPairs > 1 ? 's' : ''} retired</span>` : nothing}
    ${n.retired ? html`<span class="tag">retired: ${n.retired.replace('_', ' ')}</span>` : nothing}
  </button>`;
}

/** A refused child: named like the admitted nodes, its id and every refusal one click (or Enter) away. */
const rejectedLine = (r: RejectedGroup): TemplateResult => {
  const last = r.refusals.at(-1)!;
  return html`<details class="rejected-child" data-id=${r.id}>
    <summary class="lineage-node rejected"><span class="codicon codicon-circle-slash"></span> <span class="node-name">${r.name}</span> <span class="op">${operatorLabel(r.operator)}</span> ${aimTag(last.aim)}
      <span class="dim">refused in ${generationsLabel(r.refusals)}${r.refusals.length > 1 ? ` (${r.refusals.length} times)` : ''}: ${last.reason.split(':')[0]!.replace(/_/g, ' ')}</span></summary>
    <div class="rejected-detail"><p>Child <code>${r.id}</code> of ${r.name}${r.admitted ? ' (the same id is also in the archive, admitted)' : ''}</p>
      <ul>${r.refusals.map((x) => html`<li>g${x.generation}: ${x.reason}</li>`)}</ul></div>
  </details>`;
};

const capitalized = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

export function lineageTree(v: DashboardView, kind: 'environment' | 'user', selectedId: string | undefined, h: LineageHandlers): TemplateResult {
  const nodes = v.lineage.filter((n) => n.kind === kind);
  const ids = new Set(nodes.map((n) => n.id));
  const children = new Map<string, LineageNode[]>();
  const roots: LineageNode[] = [];
  for (const n of nodes) {
    if (n.parent && ids.has(n.parent)) children.set(n.parent, [...(children.get(n.parent) ?? []), n]);
    else roots.push(n);
  }
  const rejected = rejectedGroups(v.rejections.filter((r) => r.kind === kind), v.lineage);
  const retiredBy = new Map<string, number>();
  for (const r of v.retirements ?? []) if (r.kind === kind) retiredBy.set(r.envId, (retiredBy.get(r.envId) ?? 0) + 1);
  const item = (n: LineageNode): TemplateResult => {
    const kids = children.get(n.id) ?? [];
    const refused = rejected.filter((r) => r.parent === n.id);
    return html`<li>${nodeLine(n, retiredBy.get(n.id) ?? 0, n.id === selectedId, h)}
      ${kids.length || refused.length ? html`<ul>${kids.map(item)}${refused.map((r) => html`<li>${rejectedLine(r)}</li>`)}</ul>` : nothing}</li>`;
  };
  return html`<h2>${kind === 'environment' ? 'Environments' : 'Users'} <span class="dim">(${nodes.length} versions, ${rejected.length} rejected children)</span></h2>
    ${kind === 'environment' ? html`<p class="dim scale-key" id="difficulty-key">${capitalized(difficultyScales.design)}. ${capitalized(difficultyScales.measured)}.</p>` : nothing}
    <ul class="lineage" id=${`lineage-${kind}`}>${roots.map(item)}</ul>`;
}

/**
 * Where the steering's aim missed, move by move over the run: the children made with each move (and new pairings),
 * their mean planned prediction against their screening plays. A move whose children come out easier than aimed is
 * one the fitted model overrates for the agent. Nothing when the run recorded no predictions.
 */
export function aimByMoveTable(v: DashboardView): TemplateResult | typeof nothing {
  const rows = v.aimByMove ?? [];
  if (rows.length === 0) return nothing;
  const whole = (x: number): string => `${Math.round(x * 100)} %`;
  return html`<details class="aim-by-move" id="aim-by-move"><summary>Aim by move: where the children landed against where the model aimed them</summary>
    <table class="compare">
      <thead><tr><th>move</th><th>children</th><th>steps</th><th>aimed</th><th>screened [95 %]</th></tr></thead>
      <tbody>${rows.map((m) => html`<tr data-move=${m.move}><td>${m.move === 'repair' ? 'new pairing' : operatorLabel(m.move)}</td><td>${m.children}</td>
        <td>${m.steps[0] === m.steps[1] ? m.steps[0] : `${m.steps[0]}–${m.steps[1]}`}</td><td>${whole(m.predicted)}</td>
        <td>${whole(m.screened)} <span class="dim">[${Math.round(m.ci[0] * 100)}–${Math.round(m.ci[1] * 100)}]</span> <span class="dim">(${m.plays} plays)</span></td></tr>`)}</tbody>
    </table></details>`;
}

/** The chosen node: its spec with what changed against the parent, and a way to its rollouts. */
export function lineageDetail(node: LineageNode | undefined, spec: SpecView | undefined | 'loading', problem: string | undefined, h: LineageHandlers): TemplateResult {
  if (!node) return html`<p class="dim" id="lineage-detail">Choose an environment or a user to see what changed against its parent.</p>`;
  return html`<div id="lineage-detail" class="lineage-detail">
    <div class="detail-actions"><vscode-button id="lineage-rollouts" icon="list-flat" secondary @click=${() => h.showRollouts(node)}>Its rollouts</vscode-button></div>
    ${problem ? html`<p class="bad">${problem}</p>` : spec === 'loading' || !spec ? html`<p class="dim">Loading ${node.id}…</p>` : specPanel(spec)}
  </div>`;
}
