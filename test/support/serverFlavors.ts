// The reply shapes of the servers researchers point Coevolve at, each following its documentation page (cited per
// flavour). The loopback model server renders one scripted reply (text, reasoning, tool calls) into the exact JSON
// and SSE shapes the named server sends, so the adapter is tested against those shapes and not only OpenAI's.

/** Which server's wire shapes to speak. `openai` is the plain OpenAI shape the older tests were written against. */
export type ServerFlavor = 'openai' | 'vllm' | 'sglang' | 'ollama' | 'llamacpp';

export interface FlavorOptions {
  flavor: ServerFlavor;
  /**
   * vLLM and SGLang started with `--reasoning-parser`: reasoning comes back in its own field. Without it (the
   * default for a plain `vllm serve`), a reasoning model's thinking stays inline in `content` as `<think>…</think>`.
   */
  reasoningParser: boolean;
  /**
   * vLLM: `--enable-auto-tool-choice --tool-call-parser hermes`. Without it, a request with `tool_choice: "auto"`
   * (or tools and no tool_choice, which vLLM turns into auto) is refused with 400, and a model that calls a tool
   * writes it as text: Hermes/Qwen `<tool_call>{...}</tool_call>`.
   */
  toolParser: boolean;
  /** vLLM before 0.11 named the field `reasoning_content`; 0.11 renamed it `reasoning`. */
  legacyReasoningField: boolean;
}

/**
 * Where each flavour's shapes come from:
 * - vLLM reasoning: https://docs.vllm.ai/en/v0.11.2/features/reasoning_outputs/ — `reasoning` on the message and on
 *   stream deltas ("reasoning used to be called reasoning_content"); https://docs.vllm.ai/en/v0.10.0/features/reasoning_outputs.html
 *   for the older `reasoning_content`; Qwen3 thinking off with `chat_template_kwargs: {enable_thinking: false}`.
 * - vLLM tool calls: https://docs.vllm.ai/en/v0.8.4/features/tool_calling.html and the hermes parser
 *   https://docs.vllm.ai/en/v0.14.0/api/vllm/tool_parsers/hermes_tool_parser/ (`<tool_call>…</tool_call>` in the text).
 * - vLLM extra parameters and token ids: https://docs.vllm.ai/en/stable/serving/openai_compatible_server/ (extra
 *   parameters of the Chat API: `return_tokens_as_token_ids` writes logprob tokens as "token_id:{id}",
 *   `return_token_ids` adds `token_ids` to each choice and `prompt_token_ids` to the response, in streams to the
 *   first chunk); `/v1/models` cards carry `max_model_len`.
 * - SGLang: https://docs.sglang.io/advanced_features/separate_reasoning.html — `reasoning_content` on the message and
 *   on deltas (DeepSeek API contract), `separate_reasoning` on by default; tool calls with `--tool-call-parser`
 *   (https://docs.sglang.io/advanced_features/tool_parser.html) in the OpenAI shape; `/v1/models` cards carry
 *   `max_model_len`; logprobs entries carry `bytes`.
 * - Ollama: https://docs.ollama.com/api/openai-compatibility — reasoning control for thinking models (the field is
 *   `reasoning` on message and delta), tools, no `tool_choice`, no logprobs; `/v1/models` has no context length.
 *   Tool calls carry an `index` and stream whole in one chunk; every delta repeats `role: "assistant"`.
 * - llama.cpp server: https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md — reasoning in
 *   `reasoning_content` ("similar to Deepseek API"); `reasoning_format: "none"` outputs the raw text (inline
 *   `<think>`); tool calls with `--jinja`; responses carry `timings`; `/v1/models` has `meta.n_ctx_train`.
 */
export const flavorDocs: Record<ServerFlavor, string[]> = {
  openai: ['https://platform.openai.com/docs/api-reference/chat'],
  vllm: [
    'https://docs.vllm.ai/en/v0.11.2/features/reasoning_outputs/',
    'https://docs.vllm.ai/en/v0.8.4/features/tool_calling.html',
    'https://docs.vllm.ai/en/stable/serving/openai_compatible_server/',
  ],
  sglang: ['https://docs.sglang.io/advanced_features/separate_reasoning.html', 'https://docs.sglang.io/advanced_features/tool_parser.html'],
  ollama: ['https://docs.ollama.com/api/openai-compatibility'],
  llamacpp: ['https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md'],
};

export interface WireToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** One reply as the flavour puts it on the wire, before JSON or SSE framing. */
export interface FlavoredReply {
  content: string | null;
  /** The field reasoning goes in, when the server separates it. */
  reasoningField?: 'reasoning' | 'reasoning_content';
  reasoning?: string;
  toolCalls: WireToolCall[];
  finishReason: string;
}

export interface RequestView {
  tools?: unknown[];
  tool_choice?: unknown;
  chat_template_kwargs?: { enable_thinking?: unknown };
  reasoning_format?: unknown;
  separate_reasoning?: unknown;
}

/** vLLM's refusal of auto tool choice on a server started without a tool parser. */
export function toolChoiceRefusal(o: FlavorOptions, body: RequestView): string | undefined {
  if (o.flavor !== 'vllm' || o.toolParser || !body.tools || body.tools.length === 0) return undefined;
  const choice = body.tool_choice ?? 'auto';
  return choice === 'auto' ? '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set' : undefined;
}

/** Renders a scripted reply the way the flavour's server would send it. */
export function flavorReply(o: FlavorOptions, body: RequestView, reply: { content: string | null; reasoning?: string; toolCalls: WireToolCall[]; finishReason: string }): FlavoredReply {
  const thinkingOff = body.chat_template_kwargs?.enable_thinking === false;
  const reasoning = thinkingOff ? undefined : reply.reasoning;
  let content = reply.content;
  let toolCalls = reply.toolCalls;
  let finishReason = reply.finishReason;
  if (o.flavor === 'vllm' && !o.toolParser && toolCalls.length > 0) {
    // Without a tool parser the model's tool call is just generated text (Hermes/Qwen template convention).
    const text = toolCalls.map((c) => `<tool_call>\n${JSON.stringify({ name: c.function.name, arguments: JSON.parse(c.function.arguments || '{}') })}\n</tool_call>`).join('\n');
    content = content ? `${content}\n\n${text}` : text;
    toolCalls = [];
    finishReason = 'stop';
  }
  if (reasoning === undefined) return { content, toolCalls, finishReason };
  const separated = separatesReasoning(o, body);
  if (!separated) return { content: `<think>\n${reasoning}\n</think>\n\n${content ?? ''}`, toolCalls, finishReason };
  const reasoningField = o.flavor === 'vllm' && !o.legacyReasoningField ? 'reasoning' : o.flavor === 'ollama' ? 'reasoning' : 'reasoning_content';
  return { content, reasoningField, reasoning, toolCalls, finishReason };
}

function separatesReasoning(o: FlavorOptions, body: RequestView): boolean {
  switch (o.flavor) {
    case 'vllm':
      return o.reasoningParser;
    case 'sglang':
      return o.reasoningParser && body.separate_reasoning !== false;
    case 'llamacpp':
      return body.reasoning_format !== 'none';
    case 'ollama':
    case 'openai':
      return true;
  }
}

/** Tool call ids as each server makes them. */
export function toolCallId(flavor: ServerFlavor, seq: number, index: number): string {
  const hex = (seq * 7919 + index * 104729).toString(16).padStart(8, '0');
  switch (flavor) {
    case 'vllm':
      return `chatcmpl-tool-${hex}${hex}`;
    case 'ollama':
      return `call_${hex}`;
    case 'llamacpp':
      return `${hex}${hex}`.slice(0, 32);
    default:
      return `call_${seq}_${index}`;
  }
}

/** Fields a flavour adds to a non-streamed response (vLLM's stop_reason, llama.cpp's timings, Ollama's fingerprint). */
export function completionExtras(flavor: ServerFlavor): { top: Record<string, unknown>; choice: Record<string, unknown> } {
  switch (flavor) {
    case 'vllm':
      return { top: { system_fingerprint: null }, choice: { stop_reason: null } };
    case 'sglang':
      return { top: {}, choice: { matched_stop: null } };
    case 'ollama':
      return { top: { system_fingerprint: 'fp_ollama' }, choice: {} };
    case 'llamacpp':
      return { top: { system_fingerprint: 'b1-llamacpp', timings: { cache_n: 0, prompt_n: 1, prompt_ms: 1.5, predicted_n: 1, predicted_ms: 2.5 } }, choice: {} };
    default:
      return { top: {}, choice: {} };
  }
}

/** The model list as each server returns it; `contextWindow` appears where the server reports one. */
export function modelList(flavor: ServerFlavor, id: string, contextWindow: number | undefined): unknown {
  const card: Record<string, unknown> = { id, object: 'model', created: 0, owned_by: 'coevolve-test' };
  if (flavor === 'vllm') Object.assign(card, { owned_by: 'vllm', root: id, parent: null, max_model_len: contextWindow ?? null, permission: [] });
  if (flavor === 'sglang') Object.assign(card, { owned_by: 'sglang', root: id, parent: null, max_model_len: contextWindow ?? null });
  if (flavor === 'ollama') Object.assign(card, { owned_by: 'library' });
  if (flavor === 'llamacpp') Object.assign(card, { owned_by: 'llamacpp', meta: contextWindow ? { vocab_type: 2, n_vocab: 151936, n_ctx_train: contextWindow, n_embd: 4096 } : null });
  return { object: 'list', data: [card] };
}
