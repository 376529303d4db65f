// A stable stand-in for a tokenizer and a sampler, so the loopback server can send token ids and logprobs the way
// vLLM and SGLang do. Not a real tokenizer: what matters is that the ids are deterministic, that equal message text
// gives equal ids (so later prompts share prefixes with earlier ones, as real chat templates do), and that the
// logprobs are non-trivial floats whose exact round trip a test can check.

export interface SentTokens {
  promptTokenIds: number[];
  completionTokenIds: number[];
  completionLogprobs: number[];
  /** The token strings as sent in logprobs.content (vLLM's "token_id:N" with return_tokens_as_token_ids). */
  completionTokens: string[];
}

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** About four characters per token. */
export function pieces(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += 4) out.push(text.slice(i, i + 4));
  return out;
}

export function tokenIdOf(piece: string): number {
  return hash(piece) % 151_000;
}

/** Prompt ids message by message, with a role marker token before each, like a chat template. */
export function promptTokenIds(messages: { role: string; content?: unknown; tool_calls?: unknown }[]): number[] {
  const ids: number[] = [151_644];
  for (const m of messages) {
    ids.push(151_645 + (hash(m.role) % 8));
    const text = typeof m.content === 'string' ? m.content : '';
    for (const p of pieces(text + (m.tool_calls ? JSON.stringify(m.tool_calls) : ''))) ids.push(tokenIdOf(p));
  }
  ids.push(151_653);
  return ids;
}

/** The completion of `text` as token ids and a logprob per token (in (-10, 0], with many digits). */
export function completionTokens(text: string, asTokenIds: boolean): Omit<SentTokens, 'promptTokenIds'> {
  const ps = pieces(text);
  const ids = ps.map(tokenIdOf);
  return {
    completionTokenIds: ids,
    completionLogprobs: ids.map((id) => -((id % 9973) / 997.3 + 1e-7 * (id % 13))),
    completionTokens: asTokenIds ? ids.map((id) => `token_id:${id}`) : ps,
  };
}
