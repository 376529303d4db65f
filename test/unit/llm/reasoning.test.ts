import assert from 'node:assert/strict';
import type { ChatRequest } from '../../../src/core/ports/model.js';
import { llmRoleSchema } from '../../../src/core/spec/run.js';
import { parseLlmRole } from '../../../src/llm/llmRole.js';
import { toWireParams } from '../../../src/llm/openaiWire.js';
import { splitInlineReasoning } from '../../../src/llm/reasoningText.js';

describe('reasoning output', () => {
  it('moves a leading <think> block out of the content, as vLLM without a reasoning parser leaves it', () => {
    assert.deepEqual(splitInlineReasoning('<think>\nThe user wants a count.\n</think>\n\nThere are 3.'), { content: 'There are 3.', reasoning: 'The user wants a count.' });
    assert.deepEqual(splitInlineReasoning('  <think>x</think>'), { content: null, reasoning: 'x' });
    assert.deepEqual(splitInlineReasoning('<think></think>answer'), { content: 'answer' }, 'an empty block is no reasoning');
  });

  it('reads DeepSeek-R1 output whose opening tag was in the prompt, and a reply cut off while thinking', () => {
    assert.deepEqual(splitInlineReasoning('Let me check the log.</think>\n{"tags": []}'), { content: '{"tags": []}', reasoning: 'Let me check the log.' });
    assert.deepEqual(splitInlineReasoning('<think>still thinking when max_tokens ran out'), { content: null, reasoning: 'still thinking when max_tokens ran out' });
  });

  it('leaves a tag quoted in the middle of an answer, and plain text, alone', () => {
    const quoted = 'Models write <think> blocks like <think>this</think>.';
    assert.deepEqual(splitInlineReasoning(quoted), { content: quoted });
    assert.deepEqual(splitInlineReasoning('plain'), { content: 'plain' });
    assert.deepEqual(splitInlineReasoning(null), { content: null });
  });

  const history: ChatRequest = {
    messages: [
      { role: 'system', content: 's' },
      { role: 'user', content: 'u' },
      { role: 'assistant', content: 'first', reasoning: 'r1' },
      { role: 'user', content: 'u2' },
      { role: 'assistant', content: null, reasoning: 'r2', toolCalls: [{ id: 'c', name: 'submit', arguments: '{}' }] },
      { role: 'tool', toolCallId: 'c', content: 'ok' },
    ],
  };
  const role = (extra: Record<string, unknown> = {}) => parseLlmRole({ kind: 'llm', endpoint: 'e', model: 'm', ...extra });

  it('sends past reasoning back per role: none by default, the last turn, or all; as a field or inline tags', () => {
    const sent = (r: ReturnType<typeof role>) => (toWireParams(r, history).messages as unknown as Record<string, unknown>[]).filter((m) => m.role === 'assistant');
    assert.deepEqual(sent(role()).map((m) => [m.reasoning_content, m.reasoning]), [[undefined, undefined], [undefined, undefined]]);
    assert.deepEqual(sent(role({ sendReasoning: 'last' })).map((m) => m.reasoning_content), [undefined, 'r2']);
    assert.deepEqual(sent(role({ sendReasoning: 'all', reasoningField: 'reasoning' })).map((m) => m.reasoning), ['r1', 'r2']);
    assert.deepEqual(sent(role({ sendReasoning: 'all', reasoningField: 'think-tags' })).map((m) => m.content), ['<think>\nr1\n</think>\n\nfirst', '<think>\nr2\n</think>\n\n']);
  });

  it('passes extraBody and sampling parameters through, and asks for token data only when configured', () => {
    const params = toWireParams(role({ extraBody: { chat_template_kwargs: { enable_thinking: false }, top_k: 20 }, topP: 0.9, stop: ['</answer>'], temperature: 0.6 }), { messages: [{ role: 'user', content: 'u' }], seed: 4 });
    assert.deepEqual(params.chat_template_kwargs, { enable_thinking: false });
    assert.equal(params.top_k, 20);
    assert.deepEqual([params.temperature, params.top_p, params.stop, params.seed, params.max_tokens], [0.6, 0.9, ['</answer>'], 4, undefined]);
    assert.equal(params.logprobs, undefined);
    const vllm = toWireParams(role({ tokenData: 'vllm' }), { messages: [{ role: 'user', content: 'u' }] });
    assert.deepEqual([vllm.logprobs, vllm.return_token_ids, vllm.return_tokens_as_token_ids], [true, true, true]);
    const plain = toWireParams(role({ tokenData: 'logprobs' }), { messages: [{ role: 'user', content: 'u' }] });
    assert.deepEqual([plain.logprobs, plain.return_token_ids], [true, undefined]);
  });

  it('has no 1024-token default, and refuses extraBody fields Coevolve sets itself', () => {
    assert.equal(role().maxTokens, undefined);
    const bad = llmRoleSchema.safeParse({ kind: 'llm', endpoint: 'e', model: 'm', extraBody: { messages: [], stream: true } });
    assert.ok(!bad.success);
    assert.deepEqual(bad.error.issues.map((i) => i.path.join('.')), ['extraBody.messages', 'extraBody.stream']);
  });
});
