/**
 * The five difficulty axes every built-in family exposes, so operators and dashboards treat families alike. They live
 * in core because a run config names them (`population.builtinKnobs`) and core does not import the built-in families;
 * the families take their ranges and words from here, so the schema's hover text and the families cannot drift apart.
 */
export const knobNames = ['horizon', 'hiddenState', 'feedback', 'distractors', 'strictness'] as const;
export type KnobName = (typeof knobNames)[number];

export interface KnobRange {
  min: number;
  max: number;
  /** Which way makes the task harder: feedback gets harder as it goes down, the rest as they go up. */
  harder: 'up' | 'down';
  description: string;
}

export const knobRanges: Record<KnobName, KnobRange> = {
  horizon: { min: 1, max: 4, harder: 'up', description: 'Dependent steps the output needs (1..4).' },
  hiddenState: { min: 0, max: 3, harder: 'up', description: 'Facts only the user knows, left out of the instruction (0..3).' },
  feedback: { min: 0, max: 2, harder: 'down', description: 'Public format checker: 2 = verbose check.sh, 1 = terse, 0 = none.' },
  distractors: { min: 0, max: 6, harder: 'up', description: 'Decoy files that look like the real input (0..6).' },
  strictness: { min: 0, max: 2, harder: 'up', description: 'Verifier tolerance: 0 = order and spacing free, 1 = order matters, 2 = byte-exact.' },
};
