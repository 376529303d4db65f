// Refused children as the lineage lists them: one entry per child (a designer can make the same refused child again
// in a later generation; it used to be listed once per refusal), named like the admitted nodes (the parent's human
// name, since a refused child's own spec is never stored), with its id and every refusal kept for its detail.
import type { ChildAim, LineageNode, RejectedChild } from '../protocol.js';

export interface RejectedGroup {
  kind: RejectedChild['kind'];
  id: string;
  parent: string;
  operator: string;
  /** The parent's human name (its id when the run has none for it). */
  name: string;
  /** Each refusal, oldest first. */
  refusals: { generation: number; reason: string; aim?: ChildAim }[];
  /** The same id was admitted too (made again from another move, or refused as a duplicate of itself). */
  admitted: boolean;
}

export function rejectedGroups(rejections: readonly RejectedChild[], nodes: readonly LineageNode[]): RejectedGroup[] {
  const byId = new Map(nodes.map((n) => [`${n.kind}|${n.id}`, n]));
  const groups = new Map<string, RejectedGroup>();
  for (const r of rejections) {
    const key = `${r.kind}|${r.id}`;
    let g = groups.get(key);
    if (!g) {
      const parent = byId.get(`${r.kind}|${r.parent}`);
      groups.set(key, (g = { kind: r.kind, id: r.id, parent: r.parent, operator: r.operator, name: parent?.name ?? r.parent, refusals: [], admitted: byId.has(key) }));
    }
    g.refusals.push({ generation: r.generation, reason: r.reason, ...(r.aim ? { aim: r.aim } : {}) });
  }
  for (const g of groups.values()) g.refusals.sort((a, b) => a.generation - b.generation);
  return [...groups.values()];
}

/** "g0, g1 and g3". */
export function generationsLabel(refusals: readonly { generation: number }[]): string {
  const gs = [...new Set(refusals.map((r) => `g${r.generation}`))];
  return gs.length <= 1 ? (gs[0] ?? '') : `${gs.slice(0, -1).join(', ')} and ${gs.at(-1)}`;
}
