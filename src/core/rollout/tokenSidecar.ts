import type { TokenData } from '../ports/model.js';

/** The token data of one agent turn, as the server sent it: what an on-policy RL trainer needs. */
export interface TokenTurn extends TokenData {
  /** The agent step (step_id) this completion produced. */
  step: number;
}

export const tokenSidecarFormat = 'coevolve.tokens/1';

/**
 * The sidecar file next to a rollout (`<rolloutId>.tokens.jsonl`): a header line, then one line per agent turn.
 * Compact: a turn's prompt usually starts with the previous turn's prompt and completion, so only the length of
 * that shared prefix and the tokens after it are stored (`promptShared`, `promptRest`). Decoding gives back
 * exactly the ids the server sent.
 */
export interface TokenSidecarHeader {
  format: typeof tokenSidecarFormat;
  rolloutId: string;
  turns: number;
}

export interface EncodedTokenTurn {
  step: number;
  promptShared?: number;
  promptRest?: number[];
  completion?: number[];
  logprobs?: number[];
}

export function encodeTokenSidecar(rolloutId: string, turns: readonly TokenTurn[]): string {
  const header: TokenSidecarHeader = { format: tokenSidecarFormat, rolloutId, turns: turns.length };
  const lines = [JSON.stringify(header)];
  let reference: number[] = [];
  for (const t of turns) {
    const e: EncodedTokenTurn = { step: t.step };
    if (t.promptTokenIds) {
      const shared = sharedPrefix(reference, t.promptTokenIds);
      e.promptShared = shared;
      e.promptRest = t.promptTokenIds.slice(shared);
    }
    if (t.completionTokenIds) e.completion = t.completionTokenIds;
    if (t.completionLogprobs) e.logprobs = t.completionLogprobs;
    lines.push(JSON.stringify(e));
    // Without prompt ids the chain breaks: the next prompt is stored whole.
    reference = t.promptTokenIds ? [...t.promptTokenIds, ...(t.completionTokenIds ?? [])] : [];
  }
  return `${lines.join('\n')}\n`;
}

export function decodeTokenSidecar(text: string, where: string): { header: TokenSidecarHeader; turns: TokenTurn[] } {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  const header = JSON.parse(lines[0] ?? '{}') as TokenSidecarHeader;
  if (header.format !== tokenSidecarFormat) throw new Error(`${where}: not a token sidecar (format ${String(header.format)}, expected ${tokenSidecarFormat})`);
  const turns: TokenTurn[] = [];
  let reference: number[] = [];
  for (const [i, line] of lines.slice(1).entries()) {
    const e = JSON.parse(line) as EncodedTokenTurn;
    const t: TokenTurn = { step: e.step };
    if (e.promptRest) {
      const shared = e.promptShared ?? 0;
      if (shared > reference.length) throw new Error(`${where}:${i + 2}: the prompt shares ${shared} tokens with a reference of ${reference.length}`);
      t.promptTokenIds = [...reference.slice(0, shared), ...e.promptRest];
    }
    if (e.completion) t.completionTokenIds = e.completion;
    if (e.logprobs) t.completionLogprobs = e.logprobs;
    turns.push(t);
    reference = t.promptTokenIds ? [...t.promptTokenIds, ...(t.completionTokenIds ?? [])] : [];
  }
  if (turns.length !== header.turns) throw new Error(`${where}: ${turns.length} turns, the header says ${header.turns} (a truncated file?)`);
  return { header, turns };
}

function sharedPrefix(a: readonly number[], b: readonly number[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}
