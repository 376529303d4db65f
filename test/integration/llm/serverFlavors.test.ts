// The adapter against the reply shapes of vLLM (with and without reasoning and tool parsers, old and new reasoning
// field), SGLang, Ollama and llama.cpp's server, streamed and not: reasoning lands in its own field, tool calls are
// parsed, token ids and logprobs are exactly what the server sent, and the cache replays all of it with 0 requests.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChatRequest } from '../../../src/core/ports/model.js';
import { agentTools } from '../../../src/core/roles/agentTools.js';
import { roleMarker } from '../../../src/core/roles/llm/roleMarker.js';
import { endpointSchema } from '../../../src/core/spec/run.js';
import { createChatModel, type LlmRoleConfig } from '../../../src/llm/createChatModel.js';
import { createRequestCache } from '../../../src/llm/requestCache.js';
import { fixtures } from '../../support/flavorFixtures.js';
import { startModelServer } from '../../support/modelServer.js';

const reasoning = 'The user wants the files listed. I will run ls first.';

describe('the adapter against vLLM, SGLang, Ollama and llama.cpp reply shapes', function () {
  this.timeout(60_000);
  for (const f of fixtures) {
    for (const stream of [false, true]) {
      it(`${f.name}, ${stream ? 'streamed' : 'not streamed'}`, async () => {
        const server = await startModelServer(f.server);
        const cacheDir = await mkdtemp(join(tmpdir(), 'coevolve-flavor-'));
        try {
          server.handle('agent', () => ({ content: 'Listing the workspace.', reasoning, toolCalls: [{ name: 'run_command', arguments: { command: 'ls -la' } }] }));
          const endpoint = endpointSchema.parse({ name: 'local', baseUrls: [server.baseUrl], maxRetries: 0 });
          const role: LlmRoleConfig = { kind: 'llm', endpoint: 'local', model: 'qwen3-8b', temperature: 0, ...f.role };
          const request: ChatRequest = {
            messages: [{ role: 'system', content: `${roleMarker('agent')}\nYou are a test.` }, { role: 'user', content: 'List the files.' }],
            ...(f.textTools ? {} : { tools: agentTools, toolChoice: 'auto' as const }),
            seed: 11,
            stream,
          };
          const live = await createChatModel(endpoint, role, { cache: createRequestCache(cacheDir, 'rw') }).complete(request);
          const sent = server.requests[0]?.sent;
          assert.ok(sent);
          assert.equal(live.message.reasoning, reasoning, 'reasoning is separated, never left in the content');
          if (f.textTools) {
            assert.equal(live.message.toolCalls.length, 0);
            assert.match(live.message.content ?? '', /^Listing the workspace\.\n\n<tool_call>\n\{"name":"run_command","arguments":\{"command":"ls -la"\}\}\n<\/tool_call>$/);
          } else {
            assert.equal(live.message.content, 'Listing the workspace.');
            assert.deepEqual(live.message.toolCalls.map((c) => [c.id, c.name, JSON.parse(c.arguments)]), [[sent.reply.toolCalls[0]?.id, 'run_command', { command: 'ls -la' }]]);
          }
          if (f.tokens) {
            assert.ok(sent.tokens, 'the server sent token data');
            assert.deepEqual(live.tokens?.completionLogprobs, sent.tokens.completionLogprobs);
            if (f.tokens === 'ids') {
              assert.deepEqual(live.tokens?.completionTokenIds, sent.tokens.completionTokenIds);
              assert.deepEqual(live.tokens?.promptTokenIds, sent.tokens.promptTokenIds);
            } else {
              assert.equal(live.tokens?.completionTokenIds, undefined, 'no ids where the server sends none');
            }
          } else {
            assert.equal(live.tokens, undefined);
          }
          const replay = await createChatModel(endpoint, role, { cache: createRequestCache(cacheDir, 'replay') }).complete(request);
          assert.equal(server.count(), 1, 'the replay made 0 requests');
          assert.equal(replay.cached, true);
          assert.deepEqual(replay.message, live.message);
          assert.deepEqual(replay.tokens, live.tokens);
        } finally {
          await server.close();
          await rm(cacheDir, { recursive: true, force: true });
        }
      });
    }
  }

  it('vLLM without a tool parser refuses auto tool choice with the message vLLM sends', async () => {
    const server = await startModelServer({ flavor: 'vllm', toolParser: false });
    try {
      server.handle('agent', () => ({ content: 'unused' }));
      const endpoint = endpointSchema.parse({ name: 'local', baseUrls: [server.baseUrl], maxRetries: 0 });
      const model = createChatModel(endpoint, { kind: 'llm', endpoint: 'local', model: 'm' }, {});
      await assert.rejects(
        model.complete({ messages: [{ role: 'system', content: roleMarker('agent') }, { role: 'user', content: 'x' }], tools: agentTools, toolChoice: 'auto' }),
        /HTTP 400: 400 "auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set/,
      );
    } finally {
      await server.close();
    }
  });

  it('turns thinking off with chat_template_kwargs, as Qwen3 on vLLM does', async () => {
    const server = await startModelServer({ flavor: 'vllm' });
    try {
      server.handle('any', () => ({ content: 'quick answer', reasoning }));
      const endpoint = endpointSchema.parse({ name: 'local', baseUrls: [server.baseUrl], maxRetries: 0 });
      const model = createChatModel(endpoint, { kind: 'llm', endpoint: 'local', model: 'm', extraBody: { chat_template_kwargs: { enable_thinking: false } } }, {});
      const res = await model.complete({ messages: [{ role: 'user', content: 'x' }] });
      assert.equal(res.message.reasoning, undefined);
      assert.equal(res.message.content, 'quick answer');
      assert.deepEqual(server.requests[0]?.body.chat_template_kwargs, { enable_thinking: false });
    } finally {
      await server.close();
    }
  });
});
