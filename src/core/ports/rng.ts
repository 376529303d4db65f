/**
 * Deterministic random streams. Every rollout derives its own stream from the run seed and its identity
 * (never from completion order), so results do not depend on concurrency or on a resume.
 */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  int(minInclusive: number, maxInclusive: number): number;
  pick<T>(items: readonly T[]): T;
  shuffle<T>(items: readonly T[]): T[];
  chance(p: number): boolean;
  /** A child stream for a named sub-purpose. */
  fork(label: string): Rng;
}

/** FNV-1a 32-bit over a string: a stable, fast hash for deriving seeds from identities. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** mulberry32: tiny, well-distributed, and fully determined by a 32-bit state. */
export function createRng(seed: number | string): Rng {
  let state = typeof seed === 'string' ? hashString(seed) : seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const rng: Rng = {
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: (items) => {
      if (items.length === 0) throw new Error('pick from an empty list');
      return items[Math.floor(next() * items.length)] as (typeof items)[number];
    },
    shuffle: (items) => {
      const out = items.slice();
      for (let i = out.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [out[i], out[j]] = [out[j] as (typeof out)[number], out[i] as (typeof out)[number]];
      }
      return out;
    },
    chance: (p) => next() < p,
    fork: (label) => createRng(`${state}:${label}`),
  };
  return rng;
}

/** The stream of one rollout: a function of the run seed and the rollout's identity only. */
export function rolloutRng(runSeed: number, rolloutId: string): Rng {
  return createRng(`${runSeed}/${rolloutId}`);
}
