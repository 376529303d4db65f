/**
 * Reasoning a server left inline in `content` (vLLM or SGLang without a reasoning parser, llama.cpp with
 * `reasoning_format: none`): a leading `<think>…</think>` block (Qwen3, DeepSeek-R1-0528, GLM-4.5), text that ends in
 * `</think>` with no opening tag (DeepSeek-R1, whose chat template opens the block in the prompt), or an unterminated
 * `<think>` (the reply ran out of tokens while thinking). Only a block at the start counts: a model that writes the
 * tag in the middle of an answer is quoting it.
 */
export function splitInlineReasoning(content: string | null): { content: string | null; reasoning?: string } {
  if (content === null) return { content };
  const lead = /^\s*<think>/.exec(content);
  if (lead) {
    const rest = content.slice(lead[0].length);
    const end = rest.indexOf('</think>');
    if (end < 0) return { content: null, reasoning: rest.trim() };
    return withReasoning(rest.slice(0, end), rest.slice(end + '</think>'.length));
  }
  const end = content.indexOf('</think>');
  if (end >= 0 && !content.slice(0, end).includes('<think>')) return withReasoning(content.slice(0, end), content.slice(end + '</think>'.length));
  return { content };
}

function withReasoning(reasoning: string, after: string): { content: string | null; reasoning?: string } {
  const text = after.replace(/^\s+/, '');
  const thought = reasoning.trim();
  return { content: text === '' ? null : text, ...(thought ? { reasoning: thought } : {}) };
}
