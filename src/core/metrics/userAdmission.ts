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
 * looks. It is admitted at the first look where the exact one-sided sign test's p-value is at most the rule's level,
 * `scheduleLevel(rule)`: calibrated exactly for the schedule the loop runs (at most `maxLooks` looks of at most
 * `playsPerLook` paired plays, futility included) against the worst number of discordant plays in every look, so a
 * child that is no harder is admitted with probability at most `alpha` for any environments and any discordance.
 * (`nominalLevel` is the stricter level that would hold even if the test were looked at after every single play;
 * the loop used it until it showed that children 6-0 in 48 plays were refused at p = 0.0156.)
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

/**
 * The false-admission rate of `rule` at nominal level `nominal`, exactly, for the worst case of its look schedule:
 * the supremum, over every number of discordant plays per look (0..playsPerLook each, at most maxLooks looks), of
 * the chance that a fair-coin walk is admitted at a look end (futility included: it only removes paths).
 *
 * Why this bounds every child of no effect: given which plays are discordant, their signs are independent with
 * P(win) <= 1/2 (H0 play by play, whatever the environment), and admission only grows when a loss turns into a win;
 * so the fair coin is the worst sign distribution, and the worst discordance pattern is among those enumerated.
 */
export function scheduleFalseAdmissionRate(rule: AdmissionRule, nominal: number): number {
  const n = rule.playsPerLook;
  // pmf[d][j] = P(Bin(d, 1/2) = j); admit[m][k] = the tail at k wins of m is within the level.
  const pmf = Array.from({ length: n + 1 }, (_, d) => Array.from({ length: d + 1 }, (_, j) => binomialPmfHalf(d, j)));
  const maxM = n * rule.maxLooks;
  const admit = Array.from({ length: maxM + 1 }, (_, m) => Array.from({ length: m + 1 }, (_, k) => tail(m, k) <= nominal));
  let worst = 0;
  // dist[k] = P(k wins among the m discordant plays so far, still undecided)
  const walk = (look: number, m: number, dist: number[], admitted: number): void => {
    worst = Math.max(worst, admitted);
    if (look > rule.maxLooks) return;
    for (let d = 0; d <= n; d++) {
      const total = m + d;
      const next = new Array<number>(total + 1).fill(0);
      const row = pmf[d]!;
      for (let k = 0; k < dist.length; k++) {
        const p = dist[k]!;
        if (p !== 0) for (let j = 0; j <= d; j++) next[k + j]! += p * row[j]!;
      }
      let got = admitted;
      for (let k = 0; k <= total; k++) {
        if (next[k] === 0) continue;
        if (admit[total]![k]) { got += next[k]!; next[k] = 0; }
        else if (look >= rule.futilityFrom && k <= total - k) next[k] = 0;
      }
      walk(look + 1, total, next, got);
    }
  };
  walk(1, 0, [1], 0);
  return worst;
}

function binomialPmfHalf(n: number, k: number): number {
  let c = 1;
  for (let i = 1; i <= k; i++) c = (c * (n - k + i)) / i;
  return c / 2 ** n;
}

const scheduleCalibrated = new Map<string, number>();

/**
 * The largest nominal p-value level at which `rule`'s schedule admits a child of no effect with probability at most
 * alpha (scheduleFalseAdmissionRate): the level the loop decides at. It is larger than the every-play level
 * (nominalLevel) because the test is only ever looked at `maxLooks` times, at look ends.
 */
export function scheduleLevel(rule: AdmissionRule): number {
  const key = `${rule.alpha}|${rule.playsPerLook}|${rule.maxLooks}|${rule.futilityFrom}`;
  const known = scheduleCalibrated.get(key);
  if (known !== undefined) return known;
  const levels = new Set<number>();
  for (let m = 1; m <= rule.playsPerLook * rule.maxLooks; m++) for (let k = 0; k <= m; k++) {
    const t = tail(m, k);
    if (t <= rule.alpha) levels.add(t);
  }
  const sorted = [...levels].sort((a, b) => a - b);
  // The rate only grows with the level (a larger level admits a superset of paths): binary search.
  let lo = 0, hi = sorted.length - 1, best = 0;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (scheduleFalseAdmissionRate(rule, sorted[mid]!) <= rule.alpha) {
      best = sorted[mid]!;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  scheduleCalibrated.set(key, best);
  return best;
}

/** The decision after `looks` looks with these pooled counts. */
export function admissionDecision(rule: AdmissionRule, counts: DiscordantCounts, looks: number): AdmissionDecision {
  const pValue = signTest(counts.wins, counts.losses, 'greater');
  if (pValue <= scheduleLevel(rule)) return { verdict: 'admit', pValue, looks };
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
 * The rule the loop uses, fixed before tuning: 16 paired plays per generation for at most 3 generations, alpha 0.05,
 * decided at the schedule's calibrated level (scheduleLevel: p <= 0.027; the every-play level of 48 plays was 0.0144).
 * A child with no more wins than losses is refused at any look, the first included: a child of no effect then costs
 * one look instead of two (32 paired plays expected instead of 64), for 0.025 of power at 0.15.
 * Stated power (exact, admissionProbability): a child whose paired plays are wins with probability 0.15 and never
 * losses is admitted with probability >= 0.7 (0.72; 0.33 at 0.1, 0.92 at 0.2); a child no harder than its parent
 * with probability <= 0.05 (0.0499 at the worst discordance pattern) (test/unit/metrics/userAdmission.test.ts).
 */
export const userAdmissionRule: AdmissionRule = { alpha: 0.05, maxPaired: 48, playsPerLook: 16, maxLooks: 3, futilityFrom: 1 };
export const statedPower = { pWin: 0.15, pLoss: 0, power: 0.7 } as const;
