import { wilsonInterval } from './distributions.js';
import type { AimCheck } from './metricsSchema.js';
import { round4 } from './summaries.js';

/** A planned child's prediction (when it was planned, before any play of it) and its screening plays. */
export interface AimedChild {
  predicted: number;
  successes: number;
  trials: number;
}

/**
 * Did the steering hit what it aimed at? Over a generation's screened children: the fitted model's mean predicted
 * success when they were planned, against the success of their screening plays, with a 95 % Wilson interval. Every
 * planned child that reaches screening counts, admitted or refused, so the refusal does not bias the comparison; the
 * predictions were made before the plays, so the plays check them. Screened above predicted: the children came out
 * easier than aimed (on the level-1.5 demo's six bench seeds, children planned at 53.8 % screened at 63.5 % over
 * generations 1-4).
 * Null when no child was screened.
 */
export function aimCheck(children: readonly AimedChild[]): AimCheck | null {
  const measured = children.filter((c) => c.trials > 0);
  const plays = measured.reduce((t, c) => t + c.trials, 0);
  if (plays === 0) return null;
  const successes = measured.reduce((t, c) => t + c.successes, 0);
  const [low, high] = wilsonInterval(successes, plays);
  return {
    children: measured.length,
    plays,
    predicted: round4(measured.reduce((t, c) => t + c.predicted * c.trials, 0) / plays),
    screened: round4(successes / plays),
    ci: [round4(low), round4(high)],
  };
}

/** A child's move as its lineage operator names it ("harder:horizon+harder:horizon" is two steps of one move). */
export interface AimedMove extends AimedChild {
  operator: string;
}

/** The aim of the children made with one move, over a whole run. */
export interface MoveAim extends AimCheck {
  /** The move's distinct parts, in order ("harder:horizon"; "easier:a+easier:b" for a child of two moves). */
  move: string;
  /** Fewest and most steps of it in one child. */
  steps: [number, number];
}

/**
 * The aim split by move: where a run's steering misses, knob by knob. The fitted model holds one effect per move and
 * family and one ability per agent, so a move that helps or hurts the current agent more than that says shows here
 * as children that came out easier (or harder) than aimed. Moves with the most screening plays first.
 */
export function aimByMove(children: readonly AimedMove[]): MoveAim[] {
  const groups = new Map<string, { children: AimedMove[]; steps: number[] }>();
  for (const c of children.filter((x) => x.trials > 0)) {
    const parts = c.operator.split('+');
    const move = [...new Set(parts)].join('+');
    const g = groups.get(move) ?? { children: [], steps: [] };
    g.children.push(c);
    g.steps.push(parts.length);
    groups.set(move, g);
  }
  const rows: MoveAim[] = [];
  for (const [move, g] of groups) {
    const check = aimCheck(g.children);
    if (check) rows.push({ move, steps: [Math.min(...g.steps), Math.max(...g.steps)], ...check });
  }
  return rows.sort((a, b) => b.plays - a.plays || a.move.localeCompare(b.move));
}
