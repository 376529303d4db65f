import assert from 'node:assert/strict';
import type OpenAI from 'openai';
import { fromStream, toWireParams } from '../../../src/llm/openaiWire.js';
import { parseLlmRole } from '../../../src/llm/llmRole.js';

type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;
const chunk = (delta: Record<string, unknown>, extra: Partial<Chunk> = {}): Chunk =>
  ({ id: 'x', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta, finish_reason: null }], ...extra }) as Chunk;

async function* stream(chunks: Chunk[]): AsyncGenerator<Chunk> {
  for (const c of chunks) yield c;
}

describe('Chat Completions wire mapping', () => {
  it('assembles interleaved streamed tool calls, tolerates repeated names, and takes usage from the last chunk', async () => {
    const answer = await fromStream(
      stream([
        chunk({ role: 'assistant', content: 'Hi' }),
        chunk({ tool_calls: [{ index: 1, id: 'b', type: 'function', function: { name: 'submit', arguments: '' } }] }),
        chunk({ tool_calls: [{ index: 0, id: 'a', type: 'function', function: { name: 'run_command', arguments: '{"comm' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { name: 'run_command', arguments: 'and": "ls"}' } }] }),
        chunk({ tool_calls: [{ index: 1, function: { arguments: '{}' } }] }),
        { ...chunk({}), choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls', logprobs: null }] } as Chunk,
        { ...chunk({}), choices: [], usage: { prompt_tokens: 10, completion_tokens: 4, total_tokens: 14, prompt_tokens_details: { cached_tokens: 2 } } } as Chunk,
      ]),
    );
    assert.deepEqual(answer, {
      content: 'Hi',
      toolCalls: [{ id: 'a', name: 'run_command', arguments: '{"command": "ls"}' }, { id: 'b', name: 'submit', arguments: '{}' }],
      finishReason: 'tool_calls',
      model: 'm',
      promptTokens: 10,
      completionTokens: 4,
      cachedTokens: 2,
    });
  });

  it('maps our request onto Chat Completions parameters', () => {
    const params = toWireParams(parseLlmRole({ kind: 'llm', endpoint: 'e', model: 'm' }), {
      messages: [
        { role: 'system', content: 's' },
        { role: 'assistant', content: null, toolCalls: [{ id: 'c', name: 'run_command', arguments: '{}' }] },
        { role: 'tool', toolCallId: 'c', content: 'out' },
      ],
      tools: [{ name: 'run_command', description: 'd', parameters: { type: 'object' } }],
      toolChoice: { name: 'run_command' },
      responseSchema: { name: 'r', schema: { type: 'object' } },
      temperature: 0.2,
      maxTokens: 9,
      seed: 3,
    });
    assert.deepEqual(params, {
      model: 'm',
      messages: [
        { role: 'system', content: 's' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'run_command', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'c', content: 'out' },
      ],
      tools: [{ type: 'function', function: { name: 'run_command', description: 'd', parameters: { type: 'object' } } }],
      tool_choice: { type: 'function', function: { name: 'run_command' } },
      response_format: { type: 'json_schema', json_schema: { name: 'r', schema: { type: 'object' }, strict: false } },
      temperature: 0.2,
      max_tokens: 9,
      seed: 3,
    });
  });
});
