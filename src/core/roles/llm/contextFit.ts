import type { ChatMessage } from '../../ports/model.js';
import type { PromptNotes } from '../../rollout/trajectory.js';

export type { PromptNotes };
import { cutMiddle } from './transcript.js';

/**
 * The history policy that keeps an agent's conversation inside its model's context window (ARCHITECTURE.md,
 * "Context windows"). The agent keeps the whole conversation; each request is a fitted view of it:
 *  1. always kept: the system prompt, the task message, and the latest turn (the model's last reply and what
 *     answered it);
 *  2. older tool results are cut head-and-tail to `oldResultChars`, with a marker in the text;
 *  3. if still too long, the oldest turns are left out whole (a turn = one reply and the messages that answer it,
 *     so a tool call never loses its result), and a note saying how many is appended to the task message;
 *  4. if still too long, the latest turn's results are cut to `minResultChars`;
 *  5. if even that does not fit, the conversation cannot go on: the caller ends the rollout `truncated: context`.
 * Sizes are estimated from characters (no tokenizer is at hand): `charsPerToken` starts conservative and is
 * recalibrated from the prompt token counts the server reports.
 */
export interface ContextBudget {
  /** The model's context length in tokens. */
  window: number;
  /** Tokens kept free for the reply (the role's maxTokens, else a quarter of the window up to 8192). */
  reserve: number;
  charsPerToken: number;
}

export type FitResult = { ok: true; messages: ChatMessage[]; notes: PromptNotes } | { ok: false; estimatedPromptTokens: number; budgetTokens: number };

export const oldResultChars = 2000;
export const minResultChars = 400;
/** A fresh, unmeasured estimate: real BPE tokenizers average 3.5–4 characters per token on English and code. */
export const initialCharsPerToken = 3;

export function estimateTokens(messages: readonly ChatMessage[], charsPerToken: number): number {
  let chars = 0;
  for (const m of messages) {
    chars += (m.content ?? '').length + 16;
    if (m.role === 'assistant') chars += (m.reasoning ?? '').length + (m.toolCalls ?? []).reduce((n, c) => n + c.name.length + c.arguments.length + 24, 0);
  }
  return Math.ceil(chars / charsPerToken);
}

export function defaultReserve(window: number, maxTokens: number | undefined): number {
  return maxTokens ?? Math.min(8192, Math.floor(window / 4));
}

/**
 * How many characters of transcript a one-shot prompt (judge, rater, evolver) may carry: `cap`, or less when the
 * model's window is smaller (2.5 characters per token of what the reply leaves, and half of that for the rest of
 * the prompt).
 */
export function transcriptBudgetChars(cap: number, window: number | undefined, maxTokens: number | undefined): number {
  if (window === undefined) return cap;
  return Math.max(1000, Math.min(cap, Math.floor((window - defaultReserve(window, maxTokens)) * 2.5 * 0.5)));
}

/** Splits the history after the task message into turns: each starts with an assistant message. */
function turnsOf(messages: readonly ChatMessage[]): ChatMessage[][] {
  const turns: ChatMessage[][] = [];
  for (const m of messages) {
    if (m.role === 'assistant' || turns.length === 0) turns.push([m]);
    else turns[turns.length - 1]!.push(m);
  }
  return turns;
}

function isResult(m: ChatMessage): m is Extract<ChatMessage, { role: 'tool' | 'user' }> {
  // Text-format results come back as user messages that follow a reply; both are tool output to the model.
  return m.role === 'tool' || m.role === 'user';
}

function cutResults(turn: ChatMessage[], max: number, cuts: NonNullable<PromptNotes['cutResults']>): ChatMessage[] {
  return turn.map((m, i) => {
    if (i === 0 || !isResult(m) || m.content.length <= max) return m;
    cuts.push({ callId: m.role === 'tool' ? m.toolCallId : `message-${i}`, fromChars: m.content.length, toChars: Math.min(max, m.content.length) });
    return { ...m, content: cutMiddle(m.content, max) };
  });
}

export function fitToWindow(messages: readonly ChatMessage[], budget: ContextBudget): FitResult {
  const room = budget.window - budget.reserve;
  const head = messages.slice(0, 2);
  const turns = turnsOf(messages.slice(2));
  const measure = (ms: ChatMessage[]): number => estimateTokens(ms, budget.charsPerToken);
  const notes = (ms: ChatMessage[], extra: Pick<PromptNotes, 'cutResults' | 'elidedTurns'>): FitResult => ({
    ok: true,
    messages: ms,
    notes: { contextWindow: budget.window, estimatedPromptTokens: measure(ms), ...(extra.cutResults?.length ? { cutResults: extra.cutResults } : {}), ...(extra.elidedTurns ? { elidedTurns: extra.elidedTurns } : {}) },
  });
  if (measure([...messages]) <= room) return notes([...messages], {});

  const cuts: NonNullable<PromptNotes['cutResults']> = [];
  const last = turns.at(-1) ?? [];
  const older = turns.slice(0, -1).map((t) => cutResults(t, oldResultChars, cuts));
  for (let elided = 0; elided <= older.length; elided++) {
    const kept = older.slice(elided).flat();
    const fitted = [...withNote(head, elided), ...kept, ...last];
    if (measure(fitted) <= room) return notes(fitted, { cutResults: cuts, ...(elided > 0 ? { elidedTurns: elided } : {}) });
  }
  const minimal = [...withNote(head, older.length), ...cutResults(last, minResultChars, cuts)];
  const size = measure(minimal);
  if (size <= room) return notes(minimal, { cutResults: cuts, ...(older.length > 0 ? { elidedTurns: older.length } : {}) });
  return { ok: false, estimatedPromptTokens: size, budgetTokens: room };
}

/** The task message with a note on the left-out turns (a note, not an extra message: some templates need strict user/assistant alternation). */
function withNote(head: ChatMessage[], elided: number): ChatMessage[] {
  if (elided === 0 || head.length < 2) return head;
  const [system, task] = head as [ChatMessage, ChatMessage];
  const note = `\n\n[${elided} earlier turn${elided === 1 ? ' was' : 's were'} left out to fit the model's context window.]`;
  return [system, { ...task, content: `${task.content ?? ''}${note}` } as ChatMessage];
}
