// A real OpenAI-compatible HTTP server on 127.0.0.1 for tests and benchmarks. It speaks /v1/chat/completions
// (JSON and SSE streaming, tool calls, usage) and /v1/models, answers from per-role scripts, counts every request,
// and injects the faults a real server produces: 429 with Retry-After, 5xx, hangs, malformed tool calls.
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { roleFromSystemPrompt } from '../../src/core/roles/llm/roleMarker.js';

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

export interface RecordedRequest {
  seq: number;
  /** From the role marker in the system prompt; "unknown" when there is none. */
  role: string;
  stream: boolean;
  body: ChatBody;
  authorization: string | undefined;
  headers: IncomingHttpHeaders;
}

export interface ChatBody {
  model: string;
  messages: { role: string; content?: string | null; tool_calls?: unknown[]; tool_call_id?: string }[];
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
  /** Replies still queued for a role (or all roles): a test can assert its script was used up. */
  pending(role?: string): number;
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

export async function startModelServer(options: { latencyMs?: number; model?: string } = {}): Promise<ModelServer> {
  const latencyMs = options.latencyMs ?? 0;
  const defaultModel = options.model ?? 'test-model';
  const queues = new Map<string, ScriptedReply[]>();
  const handlers = new Map<string, ReplyFunction>();
  const requests: RecordedRequest[] = [];
  const hanging = new Set<ServerResponse>();
  let inFlight = 0;
  let peakInFlight = 0;

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
    const message = normaliseReply(scripted, recorded.seq);
    const usage = scripted.usage ?? defaultUsage(body, message);
    const model = scripted.model ?? (body.model || defaultModel);
    if (recorded.stream) return sendStream(res, message, usage, model, body.stream_options?.include_usage === true);
    sendJson(res, 200, {
      id: `chatcmpl-${recorded.seq}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: message.content, ...(message.toolCalls.length ? { tool_calls: message.toolCalls } : {}) }, finish_reason: message.finishReason, logprobs: null }],
      usage: wireUsage(usage),
    });
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = req.url ?? '';
      if (req.method === 'GET' && url.endsWith('/models')) {
        return sendJson(res, 200, { object: 'list', data: [{ id: defaultModel, object: 'model', created: 0, owned_by: 'coevolve-test' }] });
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
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface WireToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

interface WireMessage {
  content: string | null;
  toolCalls: WireToolCall[];
  finishReason: string;
}

function normaliseReply(r: MessageReply, seq: number): WireMessage {
  const toolCalls = (r.toolCalls ?? []).map((c, i) => ({
    id: c.id ?? `call_${seq}_${i}`,
    type: 'function' as const,
    function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) },
  }));
  return {
    content: r.content === undefined ? (toolCalls.length ? null : '') : r.content,
    toolCalls,
    finishReason: r.finishReason ?? (toolCalls.length ? 'tool_calls' : 'stop'),
  };
}

/** A stable stand-in for a tokenizer: about four characters per token. */
function defaultUsage(body: ChatBody, m: WireMessage): ScriptedUsage {
  const promptChars = JSON.stringify(body.messages).length + (body.tools ? JSON.stringify(body.tools).length : 0);
  const completionChars = (m.content ?? '').length + m.toolCalls.reduce((n, c) => n + c.function.name.length + c.function.arguments.length, 0);
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

function sendStream(res: ServerResponse, m: WireMessage, usage: ScriptedUsage, model: string, includeUsage: boolean): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const base = { id: 'chatcmpl-stream', object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model };
  const send = (choices: unknown[], extra: Record<string, unknown> = {}): void => {
    res.write(`data: ${JSON.stringify({ ...base, choices, ...extra })}\n\n`);
  };
  send([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]);
  // Content and tool-call arguments arrive in pieces, as real servers send them.
  for (const piece of splitInPieces(m.content ?? '', 3)) send([{ index: 0, delta: { content: piece }, finish_reason: null }]);
  m.toolCalls.forEach((call, index) => {
    send([{ index: 0, delta: { tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }, finish_reason: null }]);
    for (const piece of splitInPieces(call.function.arguments, 2)) {
      send([{ index: 0, delta: { tool_calls: [{ index, function: { arguments: piece } }] }, finish_reason: null }]);
    }
  });
  send([{ index: 0, delta: {}, finish_reason: m.finishReason }]);
  if (includeUsage) send([], { usage: wireUsage(usage) });
  res.end('data: [DONE]\n\n');
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

function sendError(res: ServerResponse, status: number, message: string, retryAfter?: string): void {
  if (res.headersSent) return void res.end();
  sendJson(res, status, { error: { message, type: status === 429 ? 'rate_limit_error' : 'server_error', code: null } }, retryAfter !== undefined ? { 'retry-after': retryAfter } : {});
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
