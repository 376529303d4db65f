/**
 * Every LLM role's system prompt starts with a marker line naming the role. It costs a few tokens and lets anyone
 * holding only the HTTP request (a test server scripting a whole run, a proxy log, a cache file) tell which role
 * asked, without guessing from the prompt's wording.
 */
export const llmRoleNames = ['agent', 'user', 'user-rater', 'designer', 'judge', 'user-evolver', 'agent-evolver'] as const;
export type LlmRoleName = (typeof llmRoleNames)[number];

const markerPattern = /^\[coevolve-role: ([a-z-]+)\]/;

export function roleMarker(role: LlmRoleName): string {
  return `[coevolve-role: ${role}]`;
}

/** The role named by the marker at the start of a system prompt, or undefined when there is none. */
export function roleFromSystemPrompt(systemPrompt: string): string | undefined {
  return markerPattern.exec(systemPrompt.trimStart())?.[1];
}
