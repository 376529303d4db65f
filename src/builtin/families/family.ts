import type { Rng } from '../../core/ports/rng.js';
import { createRng, hashString } from '../../core/ports/rng.js';
import type { EnvironmentSpec } from '../../core/spec/environment.js';
import { knobNames, knobRanges, type KnobName, type KnobRange } from '../../core/spec/knobs.js';
import type { FamilyPlaybook } from '../agent/playbook.js';

export { knobNames, type KnobName };
export type Knobs = Record<KnobName, number>;

/** A knob's range and words (core's `knobRanges`) and where the levels put it. */
export interface KnobDef extends KnobRange {
  /** Value at level 1 and at `maxLevel`; levels in between interpolate. */
  atLevel1: number;
  atMaxLevel: number;
}

export interface GenerateInput {
  /**
   * Difficulty level 1..maxLevel; ignored for knobs given in `knobs`. Between two whole levels each knob takes the
   * value nearest its interpolated position (1.75 = level 2's horizon with level 1's other knobs but one decoy), so a
   * run can start its seeds where its agent stands: the knobs of adjacent whole levels differ by up to six steps.
   */
  level?: number;
  knobs?: Partial<Knobs>;
  /**
   * The content seed (file names, values, which facts hide). Given, the spec is a function of the knobs and this
   * seed only, so a child generated with its parent's seed differs from it by the knob change alone.
   */
  contentSeed?: number;
}

export interface TaskFamily {
  name: string;
  title: string;
  maxLevel: number;
  knobs: Record<KnobName, KnobDef>;
  skills: string[];
  /** A complete, valid spec; its content and id are functions of the knobs and the numbers drawn from `rng`. */
  generate(input: GenerateInput, rng: Rng): EnvironmentSpec;
  /** What the built-in agent knows of this kind of task (how to ask, explore and solve). Never hidden values. */
  playbook: FamilyPlaybook;
}

/** The knob definitions shared by all families: the same axes, with the same ranges, so levels are comparable. */
export const standardKnobs: Record<KnobName, KnobDef> = {
  horizon: { ...knobRanges.horizon, atLevel1: 1, atMaxLevel: 4 },
  hiddenState: { ...knobRanges.hiddenState, atLevel1: 1, atMaxLevel: 3 },
  feedback: { ...knobRanges.feedback, atLevel1: 2, atMaxLevel: 0 },
  distractors: { ...knobRanges.distractors, atLevel1: 0, atMaxLevel: 6 },
  strictness: { ...knobRanges.strictness, atLevel1: 0, atMaxLevel: 2 },
};

export const standardMaxLevel = 5;

/** Knob values of a level, overridden by explicit knobs, clamped to each knob's bounds. */
export function resolveKnobs(family: Pick<TaskFamily, 'knobs' | 'maxLevel' | 'name'>, input: GenerateInput): Knobs {
  const level = input.level ?? 1;
  if (!Number.isFinite(level) || level < 1 || level > family.maxLevel) {
    throw new Error(`family ${family.name}: level ${level} is out of range; use a number 1..${family.maxLevel}`);
  }
  const t = family.maxLevel === 1 ? 0 : (level - 1) / (family.maxLevel - 1);
  const out = {} as Knobs;
  for (const name of knobNames) {
    const def = family.knobs[name];
    const given = input.knobs?.[name];
    // A level between two knob values takes the nearest one; a tie goes to the harder one.
    const exact = def.atLevel1 + (def.atMaxLevel - def.atLevel1) * t;
    const value = given ?? (def.harder === 'up' ? Math.round(exact) : -Math.round(-exact));
    out[name] = Math.min(def.max, Math.max(def.min, Math.round(value)));
  }
  return out;
}

/** Difficulty on the 1..maxLevel scale implied by knobs: the mean position of each knob between its level-1 and max-level values. */
export function difficultyOf(family: Pick<TaskFamily, 'knobs' | 'maxLevel'>, knobs: Knobs): number {
  const parts = knobNames.map((name) => {
    const def = family.knobs[name];
    const span = def.atMaxLevel - def.atLevel1;
    return span === 0 ? 0 : (knobs[name] - def.atLevel1) / span;
  });
  const mean = parts.reduce((s, p) => s + p, 0) / parts.length;
  return Math.min(100, Math.max(0, Math.round((1 + (family.maxLevel - 1) * mean) * 10) / 10));
}

const knobLetters: Record<KnobName, string> = { horizon: 'h', hiddenState: 's', feedback: 'f', distractors: 'd', strictness: 't' };

/** Readable and deterministic: the family, the knob settings (h2s1f1d3t1) and a hash of knobs + content seed. */
export function environmentId(family: string, knobs: Knobs, contentSeed: number): string {
  const code = knobNames.map((k) => `${knobLetters[k]}${knobs[k]}`).join('');
  const hash = hashString(`${family}/${code}/${contentSeed}`).toString(16).padStart(8, '0');
  return `${family}-${code}-${hash}`;
}

/** provenance.source of a generated spec: the family and its content seed, enough to regenerate it ("builtin:log-triage#123"). */
export function builtinSource(family: string, contentSeed: number): string {
  return `builtin:${family}#${contentSeed}`;
}

/** The content seed recorded in a built-in spec's provenance; undefined for hand-written or older specs. */
export function contentSeedOf(spec: { family: string; provenance: { source?: string | undefined } }): number | undefined {
  const m = /^builtin:([a-z0-9-]+)#(\d+)$/.exec(spec.provenance.source ?? '');
  if (!m || m[1] !== spec.family) return undefined;
  const seed = Number(m[2]);
  return Number.isSafeInteger(seed) && seed <= 2 ** 31 - 1 ? seed : undefined;
}

/** A seed for one generated spec, drawn from the caller's stream so the caller controls reproducibility. */
export function drawContentSeed(rng: Rng): number {
  return rng.int(0, 2 ** 31 - 1);
}

/**
 * Named streams of one content seed. Each aspect of a task (its facts, the live input, decoy i, which facts hide)
 * draws from its own stream, so changing one knob changes only the aspect that knob controls.
 */
export function contentStreams(seed: number): (aspect: string) => Rng {
  const root = createRng(seed);
  return (aspect) => root.fork(aspect);
}

/** Which facts the instruction leaves out: the first `hiddenState` of a seeded shuffle (so hiding one more keeps the others hidden). */
export function chooseHidden<T extends { id: string }>(facts: readonly T[], hiddenState: number, rng: Rng): Set<string> {
  return new Set(rng.shuffle(facts).slice(0, Math.min(hiddenState, facts.length)).map((f) => f.id));
}
