// Pure (no node imports): bundled into the webviews too, so the viewer's in-rollout search and the run-wide
// transcript search look at the same text.

/** The searchable text of a step, lowercased: its message, tool-call arguments and outputs, its error. */
export function stepText(step: { message: string; tool_calls?: { arguments: Record<string, unknown> }[]; observation?: { results: { content: string; command?: { stderr: string } }[] }; extra?: { error?: string } }): string {
  const parts = [step.message];
  for (const c of step.tool_calls ?? []) parts.push(JSON.stringify(c.arguments));
  for (const r of step.observation?.results ?? []) parts.push(r.content, r.command?.stderr ?? '');
  if (step.extra?.error) parts.push(step.extra.error);
  return parts.join('\n').toLowerCase();
}
