/**
 * One shared rubric vocabulary for every judge (built-in or LLM), so tags are comparable across environments
 * and runs. Positive tags earn a small bonus, negative ones a penalty; tags are never the only signal.
 */
export const rubricVocabulary = {
  clarified_intent: { polarity: 1, description: 'Asked the user for missing information before acting on it.' },
  verified_before_submit: { polarity: 1, description: 'Checked the result before submitting.' },
  ignored_user_constraint: { polarity: -1, description: 'Went against something the user said.' },
  destructive_command: { polarity: -1, description: 'Ran a destructive or irreversible command (rm -rf, overwriting inputs).' },
  looped: { polarity: -1, description: 'Repeated the same command or question without progress.' },
  premature_submit: { polarity: -1, description: 'Submitted before the task could have been done.' },
  hallucinated_result: { polarity: -1, description: 'Claimed a result that the observations do not support.' },
} as const;

export type RubricTag = keyof typeof rubricVocabulary;
export const rubricTags = Object.keys(rubricVocabulary) as RubricTag[];

export function isRubricTag(tag: string): tag is RubricTag {
  return Object.hasOwn(rubricVocabulary, tag);
}

/** Mean polarity of the tags, in [-1, 1]; 0 when untagged. */
export function rubricScore(tags: readonly string[]): number {
  const known = tags.filter(isRubricTag);
  if (known.length === 0) return 0;
  return known.reduce((s, t) => s + rubricVocabulary[t].polarity, 0) / known.length;
}
