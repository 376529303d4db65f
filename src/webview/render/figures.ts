// How the viewers write numbers: a true minus sign (U+2212) rather than a hyphen, percentage points with their sign,
// and the evolved users' effect in words. Pure functions of stored figures; nothing here computes a metric.

/** `x` to `digits` decimals, negative numbers with a minus sign; a value that rounds to zero has none. */
export function fixed(x: number, digits: number): string {
  const s = Math.abs(x).toFixed(digits);
  return x < 0 && Number(s) !== 0 ? `−${s}` : s;
}

/** A share as a whole percentage. */
export const pct = (x: number): string => `${Math.round(x * 100)} %`;

/** A difference of shares in percentage points, always signed (± for none). */
export function pp(d: number): string {
  const r = Math.round(d * 100);
  return `${r > 0 ? '+' : r < 0 ? '−' : '±'}${Math.abs(r)} pp`;
}

/**
 * The evolved users' effect: parent minus evolved success on the same plays (> 0: the evolved users are harder).
 * One user has no spread, so it gets no interval (the stored one is [m, m], which read as a certainty).
 */
export function userEffectText(e: { n: number; mean: number; ci: readonly [number, number] }): string {
  const r = Math.round(e.mean * 100);
  const one = e.n < 2;
  const moves = r === 0 ? (one ? 'does not change success' : 'do not change success') : `${r > 0 ? 'lower' : 'raise'}${one ? 's' : ''} success by ${Math.abs(r)} pp`;
  if (one) return `the one evolved user measured so far ${moves} against its parent (one user: no interval yet).`;
  return `evolved users ${moves} on average against their parents (parent minus evolved, 95 % interval ${pp(e.ci[0])} to ${pp(e.ci[1])}, ${e.n} users).`;
}
