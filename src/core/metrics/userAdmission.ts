import { binomialCdf, signTest } from './distributions.js';

/**
 * The statistics of user admission (ARCHITECTURE.md, "User admission"): is a user child harder than its parent?
 *
 * Child and parent play the same environments on the same rollout ids, so each paired play is concordant (both
 * succeed or both fail) or discordant: a "win" when only the parent succeeded (the child made it harder), a "loss"
 * when only the child did. Under "the child is no harder" (H0: P(win) <= P(loss) on every play) each discordant play
 * is at most a fair coin for a win, whatever the environment, so the number of wins among m discordant plays is
 * stochastically at most Binomial(m, 1/2).
 *
 * The child is on probation: every generation it plays another batch (a look) and its discordant counts pool over
 * looks. It is admitted at the first look where the exact one-sided sign test's p-value is at most `nominal`; the
 * nominal level is calibrated so that, even if the test were looked at after every single discordant play up to
 * `maxPaired`, a child that is no harder is admitted with probability at most `alpha`. Looks at batch ends are a
 * subset of those looks (the counts at a batch end are the counts after its last discordant play), so the stated
 * alpha holds for any batch sizes, any mix of environments and any number of looks up to `maxPaired` plays.
 */
export interface AdmissionRule {
  /** Overall false-admission rate for a child that is no harder than its parent (one-sided). */
  alpha: number;
  /** Most paired plays a child may accumulate (the bound the calibration holds for). */
  maxPaired: number;
  /** Paired plays per look (one look per generation). */
  playsPerLook: number;
  /** Looks before an undecided child is refused. */
  maxLooks: number;
  /** From this look on, a child with no more wins than losses is refused early (futility; it can only lower alpha). */
  futilityFrom: number;
}

export interface DiscordantCounts {
  /** Paired plays where only the parent succeeded. */
  wins: number;
  /** Paired plays where only the child succeeded. */
  losses: number;
  /** Paired plays with both outcomes (errors excluded). */
  paired: number;
}

export type AdmissionDecision =
  | { verdict: 'admit'; pValue: number; looks: number }
  | { verdict: 'refuse'; pValue: number; looks: number; why: 'no_effect' | 'out_of_looks' }
  | { verdict: 'continue'; pValue: number; looks: number };

/** P(Bin(m, 1/2) >= k). */
const tail = (m: number, k: number): number => (k <= 0 ? 1 : k > m ? 0 : 1 - binomialCdf(k - 1, m, 0.5));

/** Probability that a fair-coin walk of up to `maxM` steps ever reaches the boundary of `nominal` (exact). */
export function falseAdmissionRate(nominal: number, maxM: number): number {
  // dist[k] = P(k wins after m discordant plays, not yet admitted)
  let dist = [1];
  let admitted = 0;
  for (let m = 1; m <= maxM; m++) {
    const next = new Array<number>(m + 1).fill(0);
    for (let k = 0; k < dist.length; k++) {
      next[k + 1]! += dist[k]! / 2;
      next[k]! += dist[k]! / 2;
    }
    for (let k = 0; k <= m; k++) {
      if (next[k]! > 0 && tail(m, k) <= nominal) {
        admitted += next[k]!;
        next[k] = 0;
      }
    }
    dist = next;
  }
  return admitted;
}

const calibrated = new Map<string, number>();

/** The largest nominal p-value level whose every-play false-admission rate over `maxM` discordant plays is <= alpha. */
export function nominalLevel(alpha: number, maxM: number): number {
  const key = `${alpha}|${maxM}`;
  const known = calibrated.get(key);
  if (known !== undefined) return known;
  // The rate only changes at the tail probabilities themselves: try them from the largest that could qualify down.
  const levels = new Set<number>();
  for (let m = 1; m <= maxM; m++) for (let k = 0; k <= m; k++) {
    const t = tail(m, k);
    if (t <= alpha) levels.add(t);
  }
  const sorted = [...levels].sort((a, b) => a - b);
  let lo = 0, hi = sorted.length - 1, best = 0;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (falseAdmissionRate(sorted[mid]!, maxM) <= alpha) {
      best = sorted[mid]!;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  calibrated.set(key, best);
  return best;
}

/** The decision after `looks` looks with these pooled counts. */
export function admissionDecision(rule: AdmissionRule, counts: DiscordantCounts, looks: number): AdmissionDecision {
  const pValue = signTest(counts.wins, counts.losses, 'greater');
  if (pValue <= nominalLevel(rule.alpha, rule.maxPaired)) return { verdict: 'admit', pValue, looks };
  if (looks >= rule.maxLooks || counts.paired >= rule.maxPaired) return { verdict: 'refuse', pValue, looks, why: 'out_of_looks' };
  if (looks >= rule.futilityFrom && counts.wins <= counts.losses) return { verdict: 'refuse', pValue, looks, why: 'no_effect' };
  return { verdict: 'continue', pValue, looks };
}

/**
 * Exact admission probability of a child whose every paired play is a win with probability `pWin` and a loss with
 * probability `pLoss` (independently), under `rule` with full looks: the power (or, for pWin <= pLoss, the
 * false-admission rate) that the rule is stated with.
 */
export function admissionProbability(rule: AdmissionRule, pWin: number, pLoss: number): number {
  // state: "wins|losses" -> probability, undecided so far
  let states = new Map<string, number>([['0|0', 1]]);
  let admitted = 0;
  for (let look = 1; look <= rule.maxLooks; look++) {
    const next = new Map<string, number>();
    for (const [key, p] of states) {
      const [w0, l0] = key.split('|').map(Number) as [number, number];
      let batch = new Map<string, number>([['0|0', p]]);
      for (let i = 0; i < rule.playsPerLook; i++) {
        const b = new Map<string, number>();
        for (const [bk, bp] of batch) {
          const [w, l] = bk.split('|').map(Number) as [number, number];
          add(b, `${w + 1}|${l}`, bp * pWin);
          add(b, `${w}|${l + 1}`, bp * pLoss);
          add(b, `${w}|${l}`, bp * (1 - pWin - pLoss));
        }
        batch = b;
      }
      for (const [bk, bp] of batch) {
        const [w, l] = bk.split('|').map(Number) as [number, number];
        const counts = { wins: w0 + w, losses: l0 + l, paired: look * rule.playsPerLook };
        const d = admissionDecision(rule, counts, look);
        if (d.verdict === 'admit') admitted += bp;
        else if (d.verdict === 'continue') add(next, `${counts.wins}|${counts.losses}`, bp);
      }
    }
    states = next;
  }
  return admitted;
}

function add(m: Map<string, number>, k: string, p: number): void {
  if (p > 0) m.set(k, (m.get(k) ?? 0) + p);
}

/**
 * The rule the loop uses, fixed before tuning: 16 paired plays per generation for at most 3 generations, alpha 0.05.
 * Stated power: a child whose paired plays are wins with probability 0.2 and never losses (a mean effect of 0.2, the
 * size of the moves bench:calibration measured) is admitted with probability >= 0.8 (exactly 0.87); a child no harder
 * than its parent with probability <= 0.05 (test/unit/metrics/userAdmission.test.ts).
 */
export const userAdmissionRule: AdmissionRule = { alpha: 0.05, maxPaired: 48, playsPerLook: 16, maxLooks: 3, futilityFrom: 2 };
export const statedPower = { pWin: 0.2, pLoss: 0, power: 0.8 } as const;
