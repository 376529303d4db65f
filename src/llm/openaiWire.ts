import type OpenAI from 'openai';
import type { ChatMessage, ChatRequest, TokenData, ToolCall } from '../core/ports/model.js';
import type { LlmRoleSettings } from './llmRole.js';
import { splitInlineReasoning } from './reasoningText.js';

/** The request body as sent (without `stream`, which the caller sets): standard fields plus what servers add. */
export type WireParams = OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming & Record<string, unknown>;
type WireMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam & Record<string, unknown>;
type Completion = OpenAI.Chat.Completions.ChatCompletion;
type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;
type WireUsage = OpenAI.Completions.CompletionUsage;

/** What the adapter keeps of an answer before cost accounting. */
export interface WireAnswer {
  content: string | null;
  reasoning?: string;
  toolCalls: ToolCall[];
  finishReason: string;
  model: string;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  tokens?: TokenData;
}

/**
 * Our request as Chat Completions parameters. The role's `extraBody` goes first, so Coevolve's own fields win
 * (the schema refuses the reserved ones anyway); sampling parameters come from the request, else the role.
 */
export function toWireParams(role: LlmRoleSettings, request: ChatRequest): WireParams {
  const lastAssistant = request.messages.map((m) => m.role).lastIndexOf('assistant');
  const messages = request.messages.map((m, i) => toWireMessage(m, sendsReasoning(role, i === lastAssistant), role.reasoningField));
  const params: WireParams = { ...(role.extraBody ?? {}), model: role.model, messages };
  if (request.tools && request.tools.length > 0) {
    params.tools = request.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
  }
  if (request.toolChoice !== undefined) {
    params.tool_choice = typeof request.toolChoice === 'string' ? request.toolChoice : { type: 'function', function: { name: request.toolChoice.name } };
  }
  if (request.responseSchema) {
    // strict: false — our schemas carry optional fields and defaults, which strict mode refuses; the caller
    // validates with zod and repairs, so the server-side guarantee is not needed.
    params.response_format = { type: 'json_schema', json_schema: { name: request.responseSchema.name, schema: request.responseSchema.schema, strict: false } };
  }
  const temperature = request.temperature ?? role.temperature;
  const maxTokens = request.maxTokens ?? role.maxTokens;
  const topP = request.topP ?? role.topP;
  const stop = request.stop ?? role.stop;
  if (temperature !== undefined) params.temperature = temperature;
  if (maxTokens !== undefined) params.max_tokens = maxTokens;
  if (topP !== undefined) params.top_p = topP;
  if (stop !== undefined && stop.length > 0) params.stop = stop;
  if (request.seed !== undefined) params.seed = request.seed;
  if (role.tokenData !== 'off') params.logprobs = true;
  if (role.tokenData === 'vllm') {
    // vLLM: completion ids per choice and prompt ids at the top (return_token_ids), and logprob tokens written
    // as "token_id:<id>" (return_tokens_as_token_ids) for servers from before return_token_ids.
    params.return_token_ids = true;
    params.return_tokens_as_token_ids = true;
  }
  return params;
}

function sendsReasoning(role: LlmRoleSettings, isLast: boolean): boolean {
  return role.sendReasoning === 'all' || (role.sendReasoning === 'last' && isLast);
}

function toWireMessage(m: ChatMessage, withReasoning: boolean, field: LlmRoleSettings['reasoningField']): WireMessage {
  switch (m.role) {
    case 'system':
    case 'user':
      return { role: m.role, content: m.content };
    case 'tool':
      return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
    case 'assistant': {
      const reasoning = withReasoning && m.reasoning ? m.reasoning : undefined;
      let content = m.content;
      const extra: Record<string, unknown> = {};
      if (reasoning !== undefined) {
        if (field === 'think-tags') content = `<think>\n${reasoning}\n</think>\n\n${content ?? ''}`;
        else extra[field] = reasoning;
      }
      return m.toolCalls && m.toolCalls.length > 0
        ? { role: 'assistant', content, tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })), ...extra }
        : { role: 'assistant', content: content ?? '', ...extra };
    }
  }
}

/** The fields servers add to a message or delta next to the OpenAI ones (vLLM, SGLang, Ollama, llama.cpp). */
interface ServerMessageFields {
  reasoning?: unknown;
  reasoning_content?: unknown;
}

/** vLLM calls it `reasoning` (formerly `reasoning_content`), SGLang and llama.cpp `reasoning_content`, Ollama `reasoning`. */
function reasoningOf(m: ServerMessageFields | undefined): string | undefined {
  const value = typeof m?.reasoning === 'string' && m.reasoning !== '' ? m.reasoning : m?.reasoning_content;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

interface ServerChoiceFields {
  token_ids?: unknown;
  logprobs?: { content?: { token?: unknown; logprob?: unknown }[] | null } | null;
}

export function fromCompletion(completion: Completion): WireAnswer {
  const choice = completion.choices?.[0];
  if (!choice) throw new Error('the server answered with no choices');
  const toolCalls: ToolCall[] = [];
  for (const c of choice.message.tool_calls ?? []) {
    if (c.type === 'function') toolCalls.push({ id: c.id, name: c.function.name, arguments: c.function.arguments ?? '' });
  }
  const tokens = new TokenCollector();
  tokens.prompt((completion as unknown as { prompt_token_ids?: unknown }).prompt_token_ids);
  tokens.choice(choice as unknown as ServerChoiceFields);
  return withReasoning(
    {
      content: choice.message.content ?? null,
      toolCalls,
      finishReason: choice.finish_reason ?? 'stop',
      model: completion.model,
      ...usageOf(completion.usage),
      ...tokens.result(),
    },
    reasoningOf(choice.message as ServerMessageFields),
  );
}

/** A reasoning field wins; without one, a `<think>` block left inline in the content is moved out of it. */
function withReasoning(answer: WireAnswer, reasoning: string | undefined): WireAnswer {
  if (reasoning !== undefined) return { ...answer, reasoning };
  const split = splitInlineReasoning(answer.content);
  return { ...answer, content: split.content, ...(split.reasoning !== undefined ? { reasoning: split.reasoning } : {}) };
}

function usageOf(u: WireUsage | null | undefined): Pick<WireAnswer, 'promptTokens' | 'completionTokens' | 'cachedTokens'> {
  return { promptTokens: u?.prompt_tokens ?? 0, completionTokens: u?.completion_tokens ?? 0, cachedTokens: u?.prompt_tokens_details?.cached_tokens ?? 0 };
}

/**
 * Folds a chunk stream into one answer: content and reasoning deltas concatenated, tool calls assembled by index
 * (id and name come first, arguments in pieces; Ollama sends a call whole), token ids and logprobs appended per
 * chunk, prompt ids from the first chunk that has them, usage from the final chunk (stream_options.include_usage).
 */
export async function fromStream(stream: AsyncIterable<Chunk>): Promise<WireAnswer> {
  let content: string | null = null;
  let reasoning = '';
  const calls = new Map<number, { id: string; name: string; arguments: string }>();
  let finishReason = 'stop';
  let model = '';
  let usage = usageOf(undefined);
  const tokens = new TokenCollector();
  for await (const chunk of stream) {
    if (chunk.model) model = chunk.model;
    if (chunk.usage) usage = usageOf(chunk.usage);
    tokens.prompt((chunk as unknown as { prompt_token_ids?: unknown }).prompt_token_ids);
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    tokens.choice(choice as unknown as ServerChoiceFields);
    const delta = choice.delta;
    if (delta?.content) content = (content ?? '') + delta.content;
    reasoning += reasoningOf(delta as ServerMessageFields | undefined) ?? '';
    for (const tc of delta?.tool_calls ?? []) {
      const call = calls.get(tc.index) ?? { id: '', name: '', arguments: '' };
      if (tc.id) call.id = tc.id;
      // Names normally come whole in the first delta; some servers repeat them in later ones.
      if (tc.function?.name && tc.function.name !== call.name) call.name = call.name ? call.name + tc.function.name : tc.function.name;
      if (tc.function?.arguments) call.arguments += tc.function.arguments;
      calls.set(tc.index, call);
    }
    if (choice.finish_reason) finishReason = choice.finish_reason;
  }
  const toolCalls = [...calls.entries()].sort(([a], [b]) => a - b).map(([i, c]) => ({ ...c, id: c.id || `call_${i}` }));
  return withReasoning({ content, toolCalls, finishReason, model, ...usage, ...tokens.result() }, reasoning === '' ? undefined : reasoning);
}

/** Gathers token ids and logprobs across a response (or the chunks of a stream). */
class TokenCollector {
  private promptIds: number[] | undefined;
  private completionIds: number[] = [];
  private idsFromLogprobTokens: number[] = [];
  private logprobs: number[] = [];
  private sawIds = false;
  private sawLogprobs = false;

  prompt(ids: unknown): void {
    if (this.promptIds === undefined && isIntArray(ids)) this.promptIds = ids;
  }

  choice(choice: ServerChoiceFields): void {
    if (isIntArray(choice.token_ids)) {
      this.sawIds = true;
      this.completionIds.push(...choice.token_ids);
    }
    for (const entry of choice.logprobs?.content ?? []) {
      if (typeof entry.logprob !== 'number') continue;
      this.sawLogprobs = true;
      this.logprobs.push(entry.logprob);
      // return_tokens_as_token_ids writes each token as "token_id:<id>".
      const m = typeof entry.token === 'string' ? /^token_id:(\d+)$/.exec(entry.token) : null;
      if (m) this.idsFromLogprobTokens.push(Number(m[1]));
    }
  }

  result(): { tokens?: TokenData } {
    const tokens: TokenData = {};
    if (this.promptIds) tokens.promptTokenIds = this.promptIds;
    if (this.sawIds) tokens.completionTokenIds = this.completionIds;
    else if (this.idsFromLogprobTokens.length > 0 && this.idsFromLogprobTokens.length === this.logprobs.length) tokens.completionTokenIds = this.idsFromLogprobTokens;
    if (this.sawLogprobs) tokens.completionLogprobs = this.logprobs;
    return Object.keys(tokens).length > 0 ? { tokens } : {};
  }
}

function isIntArray(v: unknown): v is number[] {
  return Array.isArray(v) && v.every((x) => Number.isInteger(x));
}
