import { createHash } from 'node:crypto';

export const splitNames = ['train', 'validation', 'test'] as const;
export type SplitName = (typeof splitNames)[number];

export interface SplitRatios {
  train: number;
  validation: number;
  test: number;
}

export const defaultSplitRatios: SplitRatios = { train: 0.8, validation: 0.1, test: 0.1 };

/** Parses "80,10,10" or "0.8,0.1,0.1" into ratios that sum to 1. */
export function parseSplitRatios(text: string): SplitRatios {
  const parts = text.split(/[,/:]/).map((p) => Number(p.trim()));
  if (parts.length !== 3 || parts.some((p) => !Number.isFinite(p) || p < 0)) {
    throw new Error(`--splits "${text}" must be three non-negative numbers train,validation,test (e.g. 80,10,10)`);
  }
  const [train, validation, test] = parts as [number, number, number];
  const sum = train + validation + test;
  if (sum <= 0) throw new Error(`--splits "${text}" must not be all zero`);
  return { train: train / sum, validation: validation / sum, test: test / sum };
}

/**
 * The split of a lineage root: a deterministic hash of the root id mapped onto [0, 1), so the same root lands in
 * the same split in every export and on every machine, whatever else the export contains.
 */
export function splitForRoot(rootId: string, ratios: SplitRatios = defaultSplitRatios): SplitName {
  const u = createHash('sha256').update(`coevolve-split:${rootId}`).digest().readUInt32BE(0) / 2 ** 32;
  if (u < ratios.train) return 'train';
  if (u < ratios.train + ratios.validation) return 'validation';
  return 'test';
}
