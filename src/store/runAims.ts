import { aimByMove, type AimedMove, type MoveAim } from '../core/metrics/aimCheck.js';
import type { RunEvent } from '../core/ports/runStore.js';
import { childAim, type ChildAim } from './runReader.js';

/**
 * Every screened child of a run with its planned prediction, admitted or refused, from its event: environment
 * children by their move, new pairings by the move that made them or as "repair" (runs recorded before 2026-12-06
 * carry no predictions, and before then pairings had no event).
 */
function screenedChildren(events: readonly RunEvent[]): AimedMove[] {
  return events.flatMap((e) => {
    // The aim as the lineage reads it: the prediction, and the screening only when the child was played.
    let move: { operator: string; aim: ChildAim | undefined } | undefined;
    if ((e.type === 'spec.added' || e.type === 'child.rejected') && e.kind === 'environment' && e.operator) move = { operator: e.operator, aim: childAim(e) };
    if (e.type === 'pair.added' || e.type === 'pair.rejected') move = { operator: e.operator, aim: childAim({ predicted: e.predicted, validation: { screening: e.screening } }) };
    const screening = move?.aim?.screening;
    return move?.aim && screening ? [{ operator: move.operator, predicted: move.aim.predicted, ...screening }] : [];
  });
}

/** The steering's aim by move over a run, as the report and the dashboard show it. */
export const runAimByMove = (events: readonly RunEvent[]): MoveAim[] => aimByMove(screenedChildren(events));
