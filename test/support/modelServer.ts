// A real OpenAI-compatible HTTP server on 127.0.0.1 for tests and benchmarks. It speaks /v1/chat/completions
// (JSON and SSE streaming, tool calls, usage) and /v1/models, answers from per-role scripts, counts every request,
// and injects the faults a real server produces: 429 with Retry-After, 5xx, hangs, malformed tool calls, a context
// window overflow, a model list that fails or hangs. With a `flavor` it sends the exact reply shapes of vLLM (with and without reasoning and tool
// parsers), SGLang, Ollama or llama.cpp's server: see serverFlavors.ts for the documentation each follows.
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { roleFromSystemPrompt } from '../../src/core/roles/llm/roleMarker.js';
import { completionExtras, flavorReply, modelList, toolCallId, toolChoiceRefusal, type FlavoredReply, type FlavorOptions, type ServerFlavor, type WireToolCall } from './serverFlavors.js';
import { completionTokens, promptTokenIds, type SentTokens } from './serverTokens.js';

export type { ServerFlavor } from './serverFlavors.js';

export interface ScriptedToolCall {
  name: string;
  /** An object is sent as JSON; a string is sent verbatim (so it can be malformed on purpose). */
  arguments: string | Record<string, unknown>;
  id?: string;
}

export interface ScriptedUsage {
  promptTokens: number;
  completionTokens: number;
  cachedTokens?: number;
}

export interface MessageReply {
  content?: string | null;
  /** What a reasoning model thought; the flavour decides where it goes (a field, or inline <think> in content). */
  reasoning?: string;
  toolCalls?: ScriptedToolCall[];
  finishReason?: string;
  /** Defaults to a deterministic count derived from the text sizes. */
  usage?: ScriptedUsage;
  model?: string;
  /** Extra latency for this reply, on top of the server's. */
  delayMs?: number;
}

export interface StatusReply {
  status: number;
  retryAfter?: string;
  message?: string;
}

export interface HangReply {
  hang: true;
}

export type ScriptedReply = MessageReply | StatusReply | HangReply;

/** A scripted answer to GET /v1/models: a fault, or the usual listing after a delay. */
export type ModelListReply = StatusReply | HangReply | { delayMs: number };

export interface RecordedRequest {
  seq: number;
  /** From the role marker in the system prompt; "unknown" when there is none. */
  role: string;
  stream: boolean;
  body: ChatBody;
  authorization: string | undefined;
  headers: IncomingHttpHeaders;
  /** What the server answered (set once it has): the reply in its wire shape and any token data it sent. */
  sent?: { reply: FlavoredReply; tokens?: SentTokens };
}

export interface ChatBody {
  model: string;
  messages: { role: string; content?: string | null; tool_calls?: unknown[]; tool_call_id?: string; reasoning?: string; reasoning_content?: string }[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  tools?: unknown[];
  response_format?: { type: string; json_schema?: { name: string; schema: unknown } };
  [key: string]: unknown;
}

export type ReplyFunction = (request: RecordedRequest) => ScriptedReply | Promise<ScriptedReply>;

export interface ModelServer {
  /** Base URL including /v1, as an endpoint's baseUrls entry. */
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  /** Queue replies for a role ("any" serves requests of roles without their own script). */
  script(role: string, ...replies: ScriptedReply[]): void;
  /** Answer a role with a function of the request (used once its queue is empty). */
  handle(role: string, fn: ReplyFunction): void;
  /** Requests received, optionally only those of one role. */
  count(role?: string): number;
  /** Most chat requests that were open at the same time (a concurrency limit shows here). */
  readonly peakInFlight: number;
  /** GET /v1/models requests received (context-window discovery). */
  readonly modelListRequests: number;
  /** Queue replies for GET /v1/models (a status, a hang, or the listing late); once used up it lists the model at once. */
  scriptModelList(...replies: ModelListReply[]): void;
  /** Replies still queued for a role (or all roles): a test can assert its script was used up. */
  pending(role?: string): number;
  /** Drops the replies still queued for a role: what a rollout that ended early (a fault) left unasked. */
  discard(role: string): number;
  close(): Promise<void>;
}

/** Shorthands for scripting. */
export const reply = {
  text: (content: string, usage?: ScriptedUsage): MessageReply => ({ content, ...(usage ? { usage } : {}) }),
  json: (value: unknown, usage?: ScriptedUsage): MessageReply => ({ content: JSON.stringify(value), ...(usage ? { usage } : {}) }),
  tool: (name: string, args: string | Record<string, unknown>, content: string | null = null): MessageReply => ({
    content,
    toolCalls: [{ name, arguments: args }],
  }),
  status: (status: number, retryAfter?: string): StatusReply => ({ status, ...(retryAfter !== undefined ? { retryAfter } : {}) }),
  hang: (): HangReply => ({ hang: true }),
};

export interface ModelServerOptions extends Partial<FlavorOptions> {
  latencyMs?: number;
  model?: string;
  /** Refuse prompts longer than this (in the server's token count) with the 400 vLLM sends; reported in /v1/models. */
  contextWindow?: number;
}

export async function startModelServer(options: ModelServerOptions = {}): Promise<ModelServer> {
  const latencyMs = options.latencyMs ?? 0;
  const defaultModel = options.model ?? 'test-model';
  const flavor: FlavorOptions = {
    flavor: options.flavor ?? 'openai',
    reasoningParser: options.reasoningParser ?? true,
    toolParser: options.toolParser ?? true,
    legacyReasoningField: options.legacyReasoningField ?? false,
  };
  const queues = new Map<string, ScriptedReply[]>();
  const handlers = new Map<string, ReplyFunction>();
  const requests: RecordedRequest[] = [];
  const hanging = new Set<ServerResponse>();
  const modelListReplies: ModelListReply[] = [];
  let inFlight = 0;
  let peakInFlight = 0;
  let modelListRequests = 0;

  const nextReply = async (request: RecordedRequest): Promise<ScriptedReply> => {
    for (const key of [request.role, 'any']) {
      const queue = queues.get(key);
      if (queue && queue.length > 0) return queue.shift() as ScriptedReply;
      const fn = handlers.get(key);
      if (fn) return fn(request);
    }
    // 409 is not retried by the client, so a missing script fails the test at once with this message.
    return { status: 409, message: `model server: no scripted reply for role "${request.role}" (request #${request.seq})` };
  };

  const onChat = async (req: IncomingMessage, res: ServerResponse, raw: string): Promise<void> => {
    let body: ChatBody;
    try {
      body = JSON.parse(raw) as ChatBody;
    } catch {
      return sendError(res, 400, 'request body is not JSON');
    }
    const system = body.messages.find((m) => m.role === 'system');
    const recorded: RecordedRequest = {
      seq: requests.length + 1,
      role: (system && typeof system.content === 'string' && roleFromSystemPrompt(system.content)) || 'unknown',
      stream: body.stream === true,
      body,
      authorization: req.headers.authorization,
      headers: req.headers,
    };
    requests.push(recorded);
    const scripted = await nextReply(recorded);
    if ('hang' in scripted) {
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      return;
    }
    const delay = latencyMs + ('delayMs' in scripted ? (scripted.delayMs ?? 0) : 0);
    if (delay > 0) await sleep(delay);
    if ('status' in scripted) {
      return sendError(res, scripted.status, scripted.message ?? `scripted status ${scripted.status}`, scripted.retryAfter);
    }
    const refusal = toolChoiceRefusal(flavor, body);
    if (refusal) return sendError(res, 400, refusal, undefined, flavor.flavor);
    const promptTokens = defaultUsage(body, { content: '', toolCalls: [], finishReason: 'stop' }).promptTokens;
    const maxTokens = typeof body.max_tokens === 'number' ? body.max_tokens : 0;
    if (options.contextWindow !== undefined && (promptTokens >= options.contextWindow || promptTokens + maxTokens > options.contextWindow)) {
      return sendError(res, 400, `This model's maximum context length is ${options.contextWindow} tokens. However, you requested ${promptTokens + maxTokens} tokens (${promptTokens} in the messages, ${maxTokens} in the completion). Please reduce the length of the messages or completion.`, undefined, flavor.flavor);
    }
    const message = flavorReply(flavor, body, normaliseReply(scripted, recorded.seq, flavor.flavor));
    const tokens = sentTokens(flavor.flavor, body, message);
    recorded.sent = { reply: message, ...(tokens ? { tokens } : {}) };
    const usage = scripted.usage ?? defaultUsage(body, message);
    const model = scripted.model ?? (body.model || defaultModel);
    if (recorded.stream) return sendStream(res, flavor.flavor, message, usage, model, body, tokens);
    const extras = completionExtras(flavor.flavor);
    const wireMessage: Record<string, unknown> = { role: 'assistant', content: message.content };
    if (message.reasoningField) wireMessage[message.reasoningField] = message.reasoning;
    if (message.toolCalls.length) wireMessage.tool_calls = message.toolCalls.map((c, index) => (flavor.flavor === 'ollama' ? { ...c, index } : c));
    const choice: Record<string, unknown> = { index: 0, message: wireMessage, finish_reason: message.finishReason, logprobs: tokens ? logprobsOf(flavor.flavor, tokens.completionTokens, tokens.completionLogprobs) : null, ...extras.choice };
    if (tokens && wantsTokenIds(flavor.flavor, body)) choice.token_ids = tokens.completionTokenIds;
    sendJson(res, 200, {
      id: `chatcmpl-${recorded.seq}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [choice],
      usage: wireUsage(usage),
      ...extras.top,
      ...(tokens && wantsTokenIds(flavor.flavor, body) ? { prompt_token_ids: tokens.promptTokenIds } : {}),
    });
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = req.url ?? '';
      if (req.method === 'GET' && url.endsWith('/models')) {
        modelListRequests++;
        const scripted = modelListReplies.shift();
        if (scripted && 'hang' in scripted) {
          hanging.add(res);
          res.on('close', () => hanging.delete(res));
          return;
        }
        if (scripted && 'status' in scripted) return sendError(res, scripted.status, scripted.message ?? `scripted status ${scripted.status}`, scripted.retryAfter);
        const list = (): void => sendJson(res, 200, modelList(flavor.flavor, defaultModel, options.contextWindow));
        if (scripted) return void setTimeout(list, scripted.delayMs);
        return list();
      }
      if (req.method === 'POST' && url.endsWith('/chat/completions')) {
        inFlight++;
        peakInFlight = Math.max(peakInFlight, inFlight);
        res.on('close', () => inFlight--);
        onChat(req, res, Buffer.concat(chunks).toString('utf8')).catch((err: unknown) => sendError(res, 500, String(err)));
        return;
      }
      sendError(res, 404, `no route ${req.method} ${url}`);
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    get peakInFlight() {
      return peakInFlight;
    },
    get modelListRequests() {
      return modelListRequests;
    },
    scriptModelList(...replies) {
      modelListReplies.push(...replies);
    },
    script(role, ...replies) {
      const queue = queues.get(role) ?? [];
      queue.push(...replies);
      queues.set(role, queue);
    },
    handle(role, fn) {
      handlers.set(role, fn);
    },
    count(role) {
      return role === undefined ? requests.length : requests.filter((r) => r.role === role).length;
    },
    pending(role) {
      if (role !== undefined) return queues.get(role)?.length ?? 0;
      return [...queues.values()].reduce((n, q) => n + q.length, 0);
    },
    discard(role) {
      const n = queues.get(role)?.length ?? 0;
      queues.delete(role);
      return n;
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface WireMessage {
  content: string | null;
  reasoning?: string;
  toolCalls: WireToolCall[];
  finishReason: string;
}

function normaliseReply(r: MessageReply, seq: number, flavor: ServerFlavor): WireMessage {
  const toolCalls = (r.toolCalls ?? []).map((c, i) => ({
    id: c.id ?? toolCallId(flavor, seq, i),
    type: 'function' as const,
    function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) },
  }));
  return {
    content: r.content === undefined ? (toolCalls.length ? null : '') : r.content,
    ...(r.reasoning !== undefined ? { reasoning: r.reasoning } : {}),
    toolCalls,
    finishReason: r.finishReason ?? (toolCalls.length ? 'tool_calls' : 'stop'),
  };
}

/** Token data, where the flavour sends it and the request asked: vLLM and SGLang logprobs, vLLM token ids. */
function sentTokens(flavor: ServerFlavor, body: ChatBody, m: FlavoredReply): SentTokens | undefined {
  if (body.logprobs !== true || flavor === 'ollama' || flavor === 'llamacpp') return undefined;
  const generated = `${m.reasoning !== undefined ? `<think>\n${m.reasoning}\n</think>\n\n` : ''}${m.content ?? ''}${m.toolCalls.map((c) => `<tool_call>${JSON.stringify(c.function)}</tool_call>`).join('')}`;
  const asIds = flavor === 'vllm' && body.return_tokens_as_token_ids === true;
  return { promptTokenIds: promptTokenIds(body.messages), ...completionTokens(generated || ' ', asIds) };
}

function wantsTokenIds(flavor: ServerFlavor, body: ChatBody): boolean {
  return flavor === 'vllm' && body.return_token_ids === true;
}

function logprobsOf(flavor: ServerFlavor, tokens: string[], logprobs: number[]): { content: unknown[] } {
  return {
    content: tokens.map((token, i) => ({
      token,
      logprob: logprobs[i],
      bytes: flavor === 'sglang' || flavor === 'openai' ? [...Buffer.from(token)] : null,
      top_logprobs: [],
    })),
  };
}

/** A stable stand-in for a tokenizer: about four characters per token. */
function defaultUsage(body: ChatBody, m: WireMessage): ScriptedUsage {
  const promptChars = JSON.stringify(body.messages).length + (body.tools ? JSON.stringify(body.tools).length : 0);
  const completionChars = (m.content ?? '').length + (m.reasoning ?? '').length + m.toolCalls.reduce((n, c) => n + c.function.name.length + c.function.arguments.length, 0);
  return { promptTokens: Math.ceil(promptChars / 4), completionTokens: Math.max(1, Math.ceil(completionChars / 4)), cachedTokens: 0 };
}

function wireUsage(u: ScriptedUsage): Record<string, unknown> {
  return {
    prompt_tokens: u.promptTokens,
    completion_tokens: u.completionTokens,
    total_tokens: u.promptTokens + u.completionTokens,
    prompt_tokens_details: { cached_tokens: u.cachedTokens ?? 0 },
  };
}

function sendStream(res: ServerResponse, flavor: ServerFlavor, m: FlavoredReply, usage: ScriptedUsage, model: string, body: ChatBody, tokens: SentTokens | undefined): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const base = { id: 'chatcmpl-stream', object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model, ...(flavor === 'ollama' ? { system_fingerprint: 'fp_ollama' } : {}) };
  const send = (choices: unknown[], extra: Record<string, unknown> = {}): void => {
    res.write(`data: ${JSON.stringify({ ...base, choices, ...extra })}\n\n`);
  };
  // Ollama repeats the role in every delta; the others send it once, first.
  const role = flavor === 'ollama' ? { role: 'assistant' } : {};
  const deltas: Record<string, unknown>[] = [];
  if (m.reasoningField && m.reasoning) for (const piece of splitInPieces(m.reasoning, 3)) deltas.push({ ...role, content: flavor === 'ollama' ? '' : null, [m.reasoningField]: piece });
  // Content and tool-call arguments arrive in pieces, as real servers send them; Ollama sends a call whole.
  for (const piece of splitInPieces(m.content ?? '', 3)) deltas.push({ ...role, content: piece });
  m.toolCalls.forEach((call, index) => {
    if (flavor === 'ollama') {
      deltas.push({ ...role, content: '', tool_calls: [{ id: call.id, index, type: 'function', function: call.function }] });
      return;
    }
    deltas.push({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] });
    for (const piece of splitInPieces(call.function.arguments, 2)) deltas.push({ tool_calls: [{ index, function: { arguments: piece } }] });
  });
  // Token ids and logprobs ride on the chunks that carry the text, spread in order.
  const tokenSlices = tokens ? spread(tokens.completionTokenIds.length, Math.max(1, deltas.length)) : [];
  const first: Record<string, unknown> = { index: 0, delta: flavor === 'llamacpp' ? { role: 'assistant', content: null } : { role: 'assistant', content: '' }, finish_reason: null };
  send([first], tokens && wantsTokenIds(flavor, body) ? { prompt_token_ids: tokens.promptTokenIds } : {});
  deltas.forEach((delta, i) => {
    const choice: Record<string, unknown> = { index: 0, delta, finish_reason: null };
    const slice = tokenSlices[i];
    if (tokens && slice) {
      choice.logprobs = logprobsOf(flavor, tokens.completionTokens.slice(slice[0], slice[1]), tokens.completionLogprobs.slice(slice[0], slice[1]));
      if (wantsTokenIds(flavor, body)) choice.token_ids = tokens.completionTokenIds.slice(slice[0], slice[1]);
    }
    send([choice]);
  });
  if (tokens && deltas.length === 0) {
    send([{ index: 0, delta: {}, finish_reason: null, logprobs: logprobsOf(flavor, tokens.completionTokens, tokens.completionLogprobs), ...(wantsTokenIds(flavor, body) ? { token_ids: tokens.completionTokenIds } : {}) }]);
  }
  send([{ index: 0, delta: flavor === 'ollama' ? { role: 'assistant', content: '' } : {}, finish_reason: m.finishReason }], flavor === 'llamacpp' ? completionExtras('llamacpp').top : {});
  if (body.stream_options?.include_usage === true) send([], { usage: wireUsage(usage) });
  res.end('data: [DONE]\n\n');
}

/** [start, end) slices that cover n items in `parts` nearly equal runs. */
function spread(n: number, parts: number): [number, number][] {
  const out: [number, number][] = [];
  for (let i = 0; i < parts; i++) out.push([Math.floor((i * n) / parts), Math.floor(((i + 1) * n) / parts)]);
  return out;
}

function splitInPieces(text: string, pieces: number): string[] {
  if (text.length === 0) return [];
  const size = Math.ceil(text.length / pieces);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function sendError(res: ServerResponse, status: number, message: string, retryAfter?: string, flavor: ServerFlavor = 'openai'): void {
  if (res.headersSent) return void res.end();
  const type = status === 429 ? 'rate_limit_error' : status === 400 ? (flavor === 'vllm' ? 'BadRequestError' : 'invalid_request_error') : 'server_error';
  sendJson(res, status, { error: { message, type, param: null, code: flavor === 'vllm' || flavor === 'llamacpp' ? status : null } }, retryAfter !== undefined ? { 'retry-after': retryAfter } : {});
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
