import type OpenAI from 'openai';
import type { ChatMessage, ChatRequest, ToolCall } from '../core/ports/model.js';

type WireParams = OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming;
type WireMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type Completion = OpenAI.Chat.Completions.ChatCompletion;
type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;
type WireUsage = OpenAI.Completions.CompletionUsage;

/** What the adapter keeps of an answer before cost accounting. */
export interface WireAnswer {
  content: string | null;
  toolCalls: ToolCall[];
  finishReason: string;
  model: string;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
}

/** Our request as Chat Completions parameters (without `stream`, which the caller sets). */
export function toWireParams(model: string, request: ChatRequest): WireParams {
  const params: WireParams = { model, messages: request.messages.map(toWireMessage) };
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
  if (request.temperature !== undefined) params.temperature = request.temperature;
  if (request.maxTokens !== undefined) params.max_tokens = request.maxTokens;
  if (request.seed !== undefined) params.seed = request.seed;
  return params;
}

function toWireMessage(m: ChatMessage): WireMessage {
  switch (m.role) {
    case 'system':
    case 'user':
      return { role: m.role, content: m.content };
    case 'tool':
      return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
    case 'assistant':
      return m.toolCalls && m.toolCalls.length > 0
        ? { role: 'assistant', content: m.content, tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) }
        : { role: 'assistant', content: m.content ?? '' };
  }
}

export function fromCompletion(completion: Completion): WireAnswer {
  const choice = completion.choices?.[0];
  if (!choice) throw new Error('the server answered with no choices');
  const toolCalls: ToolCall[] = [];
  for (const c of choice.message.tool_calls ?? []) {
    if (c.type === 'function') toolCalls.push({ id: c.id, name: c.function.name, arguments: c.function.arguments ?? '' });
  }
  return {
    content: choice.message.content ?? null,
    toolCalls,
    finishReason: choice.finish_reason ?? 'stop',
    model: completion.model,
    ...usageOf(completion.usage),
  };
}

function usageOf(u: WireUsage | null | undefined): Pick<WireAnswer, 'promptTokens' | 'completionTokens' | 'cachedTokens'> {
  return { promptTokens: u?.prompt_tokens ?? 0, completionTokens: u?.completion_tokens ?? 0, cachedTokens: u?.prompt_tokens_details?.cached_tokens ?? 0 };
}

/**
 * Folds a chunk stream into one answer: content deltas concatenated, tool calls assembled by index (id and name
 * come first, arguments in pieces), usage from the final chunk (stream_options.include_usage).
 */
export async function fromStream(stream: AsyncIterable<Chunk>): Promise<WireAnswer> {
  let content: string | null = null;
  const calls = new Map<number, { id: string; name: string; arguments: string }>();
  let finishReason = 'stop';
  let model = '';
  let usage = usageOf(undefined);
  for await (const chunk of stream) {
    if (chunk.model) model = chunk.model;
    if (chunk.usage) usage = usageOf(chunk.usage);
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    const delta = choice.delta;
    if (delta?.content) content = (content ?? '') + delta.content;
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
  return { content, toolCalls, finishReason, model, ...usage };
}
