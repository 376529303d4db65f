// The part of jstat (1.9.6, no types published) that src/core/metrics/distributions.ts uses.
declare module 'jstat' {
  interface Continuous2 {
    cdf(x: number, a: number, b: number): number;
    inv(p: number, a: number, b: number): number;
  }
  export const jStat: {
    beta: Continuous2;
    normal: Continuous2;
    binomial: { cdf(k: number, n: number, p: number): number };
    studentt: { inv(p: number, dof: number): number; cdf(x: number, dof: number): number };
    /** log B(a, b) */
    betaln(a: number, b: number): number;
    /** log C(n, k) */
    combinationln(n: number, k: number): number;
  };
}
