import type { RolloutRecord } from '../rollout/trajectory.js';
import type { RealismBounds, RealismIndicators } from './metricsSchema.js';

/** Human-like bounds of a user's observable behaviour; fixed before tuning (ARCHITECTURE.md, "Realism"). */
export const realismIndicatorBounds: RealismBounds = {
  disclosureRate: [0.25, 1],
  meanMessageChars: [10, 800],
  meanAgentTurns: [2, 25],
  walkAwayShare: [0, 0.5],
};

const walkAway = new Set(['gave_up', 'out_of_patience', 'out_of_scope']);

/** The indicators of one user over its plays (no-hint or not, errors excluded) plus the reference verdict. */
export function realismIndicators(records: RolloutRecord[], referenceSatisfied: boolean): RealismIndicators {
  const played = records.filter((r) => r.status !== 'error');
  let replies = 0, disclosing = 0, chars = 0, messages = 0, turns = 0, walked = 0;
  for (const r of played) {
    for (const s of r.steps) {
      if (s.source !== 'user') continue;
      messages++;
      chars += s.message.length;
      if (s.extra?.replyTo) {
        replies++;
        if ((s.extra.disclosedFacts?.length ?? 0) > 0) disclosing++;
      }
    }
    turns += r.steps.filter((s) => s.source === 'agent').length;
    if (r.userRating && walkAway.has(r.userRating.stopReason)) walked++;
  }
  const n = Math.max(1, played.length);
  return {
    referenceSatisfied,
    disclosureRate: replies ? disclosing / replies : null,
    meanMessageChars: messages ? chars / messages : 0,
    meanAgentTurns: turns / n,
    walkAwayShare: walked / n,
  };
}

/** What puts a user outside the bounds; empty when it is within every bound and the reference play satisfied it. */
export function realismViolations(ind: RealismIndicators, bounds: RealismBounds = realismIndicatorBounds): string[] {
  const out: string[] = [];
  if (!ind.referenceSatisfied) out.push('a reference play with the hint did not satisfy the user');
  const check = (name: keyof RealismBounds, v: number | null): void => {
    if (v === null) return;
    const [lo, hi] = bounds[name];
    if (v < lo || v > hi) out.push(`${name} ${Math.round(v * 1000) / 1000} outside ${lo}..${hi}`);
  };
  check('disclosureRate', ind.disclosureRate);
  check('meanMessageChars', ind.meanMessageChars);
  check('meanAgentTurns', ind.meanAgentTurns);
  check('walkAwayShare', ind.walkAwayShare);
  return out;
}
