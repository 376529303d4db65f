import type { RunEventBody } from '../ports/runStore.js';
import { round4 } from '../metrics/summaries.js';
import type { ChildOutcome } from './children.js';

/**
 * The event that records a child's outcome: `spec.added` / `child.rejected` for an environment or user child,
 * `pair.added` / `pair.rejected` for a new pairing. Each carries the child's planned prediction, so the aim can be
 * checked child by child. An admitted child belongs to the next generation's archive (`g + 1`), a refused one to `g`.
 */
export function childEvent(o: ChildOutcome, g: number): RunEventBody {
  const predicted = round4(o.predicted);
  if (o.kind === 'pair') {
    const p = o.pairing;
    if (!p) throw new Error(`pairing outcome ${o.id} without what it pairs`);
    const made = { envId: p.envId, userId: p.userId, parent: p.madeBy?.parent ?? p.envId, operator: p.madeBy?.operator ?? o.operator, predicted, ...(p.screening ? { screening: p.screening } : {}) };
    if (o.accepted && p.pairId) return { type: 'pair.added', pairId: p.pairId, ...made, generation: g + 1 };
    return { type: 'pair.rejected', ...made, reason: `${o.reason}: ${o.detail ?? ''}`.slice(0, 2000), generation: g };
  }
  const validation = o.validation ? { validation: o.validation } : {};
  if (o.accepted) return { type: 'spec.added', kind: o.kind, id: o.id, parent: o.parent, operator: o.operator, generation: g + 1, ...validation, predicted };
  return { type: 'child.rejected', kind: o.kind, id: o.id, parent: o.parent, operator: o.operator, reason: `${o.reason}: ${o.detail ?? ''}`.slice(0, 2000), generation: g, ...validation, predicted };
}
