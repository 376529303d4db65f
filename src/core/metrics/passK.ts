/** Binomial coefficient as a float; exact enough for the trial counts used here (n ≤ 64). */
export function choose(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
}

/** Unbiased pass@k (Chen et al. 2021): chance that at least one of k draws without replacement succeeds. */
export function passAtK(n: number, c: number, k: number): number {
  if (n < k) return c > 0 ? 1 : 0; // fewer trials than k: fall back to "any success"
  if (n - c < k) return 1;
  return 1 - choose(n - c, k) / choose(n, k);
}

/** pass^k (tau-bench): chance that k draws without replacement all succeed — reliability. */
export function passHatK(n: number, c: number, k: number): number {
  if (n < k) return c === n && n > 0 ? 1 : 0;
  return choose(c, k) / choose(n, k);
}

export const reportedK = [1, 2, 3, 4] as const;
