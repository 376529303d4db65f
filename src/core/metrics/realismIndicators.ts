import type { RolloutRecord } from '../rollout/trajectory.js';
import { hasVerdict } from '../rollout/verdict.js';
import type { RealismBounds, RealismIndicators } from './metricsSchema.js';

/** Human-like bounds of a user's observable behaviour; fixed before tuning (ARCHITECTURE.md, "Realism"). */
export const realismIndicatorBounds: RealismBounds = {
  disclosureRate: [0.25, 1],
  meanMessageChars: [10, 800],
  meanAgentTurns: [2, 25],
  walkAwayShare: [0, 0.5],
};

const walkAway = new Set(['gave_up', 'out_of_patience', 'out_of_scope']);

/**
 * The sums the indicators are made of, so a user's plays over several looks pool. Plays with no outcome (verdict.ts:
 * an infrastructure error, a verification or rating cut short) are left out: a cut rating records no stop reason, so
 * it would read as a user who stayed.
 */
export interface RealismTally { plays: number; replies: number; disclosing: number; chars: number; messages: number; turns: number; walked: number }

export const emptyTally = (): RealismTally => ({ plays: 0, replies: 0, disclosing: 0, chars: 0, messages: 0, turns: 0, walked: 0 });

/** Adds the plays' sums to `into` (a new tally when absent) and returns it. */
export function tallyRealism(records: RolloutRecord[], into: RealismTally = emptyTally()): RealismTally {
  for (const r of records) {
    if (!hasVerdict(r)) continue;
    into.plays++;
    for (const s of r.steps) {
      if (s.source !== 'user') continue;
      into.messages++;
      into.chars += s.message.length;
      if (s.extra?.replyTo) {
        into.replies++;
        if ((s.extra.disclosedFacts?.length ?? 0) > 0) into.disclosing++;
      }
    }
    into.turns += r.steps.filter((s) => s.source === 'agent').length;
    if (r.userRating && walkAway.has(r.userRating.stopReason)) into.walked++;
  }
  return into;
}

/** The indicators of a tally plus the reference verdict. */
export function indicatorsOf(t: RealismTally, referenceSatisfied: boolean): RealismIndicators {
  const n = Math.max(1, t.plays);
  return {
    referenceSatisfied,
    disclosureRate: t.replies ? t.disclosing / t.replies : null,
    meanMessageChars: t.messages ? t.chars / t.messages : 0,
    meanAgentTurns: t.turns / n,
    walkAwayShare: t.walked / n,
  };
}

/** The indicators of one user over its plays with an outcome (no-hint or not) plus the reference verdict. */
export function realismIndicators(records: RolloutRecord[], referenceSatisfied: boolean): RealismIndicators {
  return indicatorsOf(tallyRealism(records), referenceSatisfied);
}

/** What puts a user outside the bounds; empty when it is within every bound and the reference play satisfied it. */
export function realismViolations(ind: RealismIndicators, bounds: RealismBounds = realismIndicatorBounds): string[] {
  const out: string[] = [];
  if (!ind.referenceSatisfied) out.push('a reference play with the hint did not satisfy the user');
  const check = (name: keyof RealismBounds, v: number | null): void => {
    if (v === null) return;
    const [lo, hi] = bounds[name];
    if (v < lo || v > hi) out.push(`${name} ${round3(v)} outside ${lo}..${hi}`);
  };
  check('disclosureRate', ind.disclosureRate);
  check('meanMessageChars', ind.meanMessageChars);
  check('meanAgentTurns', ind.meanAgentTurns);
  check('walkAwayShare', ind.walkAwayShare);
  return out;
}

/**
 * What keeps a user child out at admission: the bounds, with the two share indicators (walk-aways per play, disclosing
 * replies per reply) inside them by one standard error of their own plays. A child at the edge is as likely outside as
 * inside on the next fresh plays: bench:efficacy on 1eb681f with two user children a generation admitted one at exactly
 * 0.5 walk-aways on 16 plays, and `coevolve eval` read 0.6 on 20 fresh ones. `realismViolations` stays the plain bound
 * (eval's verdict on fresh plays).
 */
export function admissionRealismViolations(t: RealismTally, referenceSatisfied: boolean, bounds: RealismBounds = realismIndicatorBounds): string[] {
  const out = realismViolations(indicatorsOf(t, referenceSatisfied), bounds);
  const share = (name: 'walkAwayShare' | 'disclosureRate', hits: number, n: number, unit: string): void => {
    if (n === 0) return;
    const v = hits / n;
    const se = Math.sqrt((v * (1 - v)) / n);
    const [lo, hi] = bounds[name];
    if (v < lo || v > hi) return; // already outside: realismViolations said so
    if (v + se > hi || v - se < lo) out.push(`${name} ${round3(v)} (se ${round3(se)} over ${n} ${unit}) not inside ${lo}..${hi} by one standard error`);
  };
  share('walkAwayShare', t.walked, t.plays, 'plays');
  share('disclosureRate', t.disclosing, t.replies, 'replies');
  return out;
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;
