import { aimByMove, type AimedMove, type MoveAim } from '../core/metrics/aimCheck.js';
import type { RunEvent } from '../core/ports/runStore.js';

/**
 * Every screened child of a run with its planned prediction, admitted or refused, from its event: environment
 * children by their move, new pairings by the move that made them or as "repair" (runs recorded before 2026-12-06
 * carry no predictions, and before then pairings had no event).
 */
export function screenedChildren(events: readonly RunEvent[]): AimedMove[] {
  return events.flatMap((e) => {
    const child = (e.type === 'spec.added' || e.type === 'child.rejected') && e.kind === 'environment' && e.operator && e.predicted !== undefined
      ? { operator: e.operator, predicted: e.predicted, s: e.validation?.screening }
      : (e.type === 'pair.added' || e.type === 'pair.rejected') ? { operator: e.operator, predicted: e.predicted, s: e.screening } : undefined;
    return child?.s && child.s.trials > 0 ? [{ operator: child.operator, predicted: child.predicted, successes: child.s.successes, trials: child.s.trials }] : [];
  });
}

/** The steering's aim by move over a run, as the report and the dashboard show it. */
export const runAimByMove = (events: readonly RunEvent[]): MoveAim[] => aimByMove(screenedChildren(events));
