import assert from 'node:assert/strict';
import { resolveApiKey } from '../../../src/llm/apiKey.js';
import { callCostUsd } from '../../../src/llm/cost.js';
import { toWireParams } from '../../../src/llm/openaiWire.js';
import { parseLlmRole } from '../../../src/llm/llmRole.js';
import { describeRequest, normaliseRequest as normaliseBody, positionalKey, requestCacheKey } from '../../../src/llm/requestKey.js';
import { parseRetryAfter, retryDelayMs } from '../../../src/llm/retryPolicy.js';
import { scrubSecrets } from '../../../src/llm/scrubSecrets.js';
import { promptTokensNamedIn, windowNamedIn } from '../../../src/llm/modelError.js';
import { endpointSchema } from '../../../src/core/spec/run.js';
import type { ChatRequest } from '../../../src/core/ports/model.js';

/** The key of a request as the adapter builds it: the wire body for this model, plus the endpoint's servers. */
const normaliseRequest = (model: string, request: ChatRequest, urls: string[]) =>
  normaliseBody(toWireParams(parseLlmRole({ kind: 'llm', endpoint: 'e', model, temperature: 0 }), request), urls);

const headers = (h: Record<string, string>) => ({ get: (name: string) => h[name] ?? null });

describe('adapter parts', () => {
  describe('retry policy', () => {
    const policy = { baseDelayMs: 100, maxDelayMs: 1000, maxRetryAfterMs: 5000 };
    it('doubles per attempt, jitters within the upper half, and caps', () => {
      assert.deepEqual([1, 2, 3, 4, 5].map((n) => retryDelayMs(n, policy, () => 1)), [100, 200, 400, 800, 1000]);
      assert.deepEqual([1, 2, 3].map((n) => retryDelayMs(n, policy, () => 0)), [50, 100, 200]);
    });
    it('never waits less than Retry-After, up to its cap', () => {
      assert.equal(retryDelayMs(1, policy, () => 0, 3000), 3000);
      assert.equal(retryDelayMs(1, policy, () => 0, 60_000), 5000);
      assert.equal(retryDelayMs(4, policy, () => 1, 10), 800);
    });
    it('reads Retry-After as seconds, as a date, and retry-after-ms', () => {
      assert.equal(parseRetryAfter(headers({ 'retry-after': '2' })), 2000);
      assert.equal(parseRetryAfter(headers({ 'retry-after-ms': '150', 'retry-after': '9' })), 150);
      assert.equal(parseRetryAfter(headers({ 'retry-after': new Date(10_000).toUTCString() }), 4000), 6000);
      assert.equal(parseRetryAfter(headers({ 'retry-after': 'soon' })), undefined);
      assert.equal(parseRetryAfter(headers({})), undefined);
    });
  });

  describe('request key', () => {
    const urls = ['http://127.0.0.1:8000/v1'];
    const base: ChatRequest = { messages: [{ role: 'system', content: 's' }, { role: 'user', content: 'u' }], temperature: 0.5, seed: 1 };
    it('ignores stream, signal and key order, and changes with anything that changes the answer', () => {
      const k = requestCacheKey(normaliseRequest('m', base, urls));
      assert.equal(requestCacheKey(normaliseRequest('m', { seed: 1, temperature: 0.5, messages: base.messages, stream: true, signal: new AbortController().signal }, urls)), k);
      assert.notEqual(requestCacheKey(normaliseRequest('m2', base, urls)), k);
      assert.notEqual(requestCacheKey(normaliseRequest('m', { ...base, seed: 2 }, urls)), k);
      assert.notEqual(requestCacheKey(normaliseRequest('m', { ...base, temperature: 0.7 }, urls)), k);
      assert.notEqual(requestCacheKey(normaliseRequest('m', { ...base, toolChoice: 'required' }, urls)), k);
      assert.notEqual(requestCacheKey(normaliseRequest('m', { ...base, responseSchema: { name: 'x', schema: {} } }, urls)), k);
      assert.notEqual(requestCacheKey(normaliseRequest('m', { ...base, messages: [...base.messages, { role: 'user', content: 'more' }] }, urls)), k);
      // Issue 11: another server with the same model name is another model; a fleet's URL order is not.
      assert.notEqual(requestCacheKey(normaliseRequest('m', base, ['http://127.0.0.1:8001/v1'])), k);
      const fleet = ['http://10.0.0.2:8000/v1', 'http://10.0.0.1:8000/v1/'];
      assert.equal(requestCacheKey(normaliseRequest('m', base, fleet)), requestCacheKey(normaliseRequest('m', base, ['http://10.0.0.1:8000/v1', 'http://10.0.0.2:8000/v1'])));
      assert.notEqual(positionalKey(normaliseRequest('m', base, ['http://127.0.0.1:8001/v1'])), positionalKey(normaliseRequest('m', base, urls)));
    });
    it('keys a seeded call by position: observations may differ, the model\'s own answers and the seed may not', () => {
      const turn = (observation: string, answer = 'a1', seed: number | null = 7): ChatRequest => ({
        messages: [
          { role: 'system', content: 's' },
          { role: 'user', content: 'task' },
          { role: 'assistant', content: answer, toolCalls: [{ id: 'c', name: 'run_command', arguments: '{"command":"date"}' }] },
          { role: 'tool', toolCallId: 'c', content: observation },
        ],
        ...(seed !== null ? { seed } : {}),
      });
      const k = positionalKey(normaliseRequest('m', turn('10:00'), urls));
      assert.ok(k);
      assert.equal(positionalKey(normaliseRequest('m', turn('10:01'), urls)), k);
      assert.notEqual(requestCacheKey(normaliseRequest('m', turn('10:01'), urls)), requestCacheKey(normaliseRequest('m', turn('10:00'), urls)));
      assert.notEqual(positionalKey(normaliseRequest('m', turn('10:00', 'a2'), urls)), k);
      assert.notEqual(positionalKey(normaliseRequest('m', turn('10:00', 'a1', 8), urls)), k);
      assert.equal(positionalKey(normaliseRequest('m', turn('10:00', 'a1', null), urls)), undefined, 'no seed, no position');
    });

    it('names a request by model and first-message digest without printing it', () => {
      const text = describeRequest(normaliseRequest('m', base, urls));
      assert.match(text, /^model "m", 2 messages, first message \(system\) sha256:[0-9a-f]{12}$/);
    });
  });

  it("reads the prompt's token count from a context refusal in each server's words, and nothing from one that has none", () => {
    const vllm = "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4800 in the messages, 200 in the completion). Please reduce the length of the messages or completion.";
    assert.equal(promptTokensNamedIn(vllm), 4800, 'the messages, not messages + completion');
    assert.equal(windowNamedIn(vllm), 4096);
    assert.equal(promptTokensNamedIn("This model's maximum context length is 4096 tokens. However, you requested 5000 tokens in the messages, Please reduce the length of the messages."), 5000);
    assert.equal(promptTokensNamedIn("This model's maximum context length is 4096 tokens. However, your request has 4500 input tokens. Please reduce the length of the input messages."), 4500);
    assert.equal(promptTokensNamedIn("The input (5000 tokens) is longer than the model's context length (4096 tokens)."), 5000);
    assert.equal(promptTokensNamedIn('{"code":400,"message":"the request exceeds the available context size","type":"exceed_context_size_error","n_prompt_tokens":5000,"n_ctx":4096}'), 5000);
    assert.equal(promptTokensNamedIn('prompt is too long'), undefined);
  });

  it('scrubs keys, bearer tokens and sk- keys', () => {
    const key = 'abcdefghijklmnop-very-secret';
    const out = scrubSecrets(`failed with ${key}; Authorization: Bearer ${key} and sk-live_1234567890abcdef, api_key="zzz123"`, [key]);
    assert.ok(!out.includes(key) && !out.includes('sk-live_1234567890abcdef') && !out.includes('zzz123'), out);
    // Issue 11: a configured key is masked whatever its length (a server echoed a 5-character key back).
    assert.equal(scrubSecrets('the key k3y!x was refused; k3y!x again', ['k3y!x']), 'the key [redacted] was refused; [redacted] again');
    assert.equal(scrubSecrets('abc and abcdef', ['abc', 'abcdef']), '[redacted] and [redacted]', 'longest first');
    assert.equal(scrubSecrets('nothing to hide', ['']), 'nothing to hide', 'an empty key masks nothing');
    assert.equal(scrubSecrets('http://alice:pw@host:8000/v1'), 'http://[redacted]@host:8000/v1');
    const once = scrubSecrets(`Authorization: Bearer ${key}. Check api_key=${key} now`, [key]);
    assert.equal(scrubSecrets(once, [key]), once, 'scrubbing twice changes nothing');
    assert.match(once, /\. Check api_key=\[redacted\] now$/);
  });

  it('prices calls by requested model, then by the model that answered', () => {
    const prices = { a: { inputPerMTok: 1, outputPerMTok: 2 }, 'b-2025': { inputPerMTok: 10, outputPerMTok: 20 } };
    assert.equal(callCostUsd(prices, ['a', 'a-x'], 1_000_000, 500_000), 2);
    assert.equal(callCostUsd(prices, ['b', 'b-2025'], 1000, 1000), 0.03);
    assert.equal(callCostUsd(prices, ['c'], 1000, 1000), 0);
  });

  it('resolves keys: host key, then the named variable, else a placeholder for keyless local servers', () => {
    const withEnv = endpointSchema.parse({ name: 'e', baseUrls: ['http://127.0.0.1:1/v1'], apiKeyEnv: 'MY_KEY' });
    const keyless = endpointSchema.parse({ name: 'e', baseUrls: ['http://127.0.0.1:1/v1'] });
    assert.equal(resolveApiKey(withEnv, 'host', { MY_KEY: 'env' }), 'host');
    assert.equal(resolveApiKey(withEnv, undefined, { MY_KEY: 'env' }), 'env');
    assert.equal(resolveApiKey(keyless, undefined, { OPENAI_API_KEY: 'must-not-leak' }), 'no-key');
    assert.throws(() => resolveApiKey(withEnv, undefined, {}), /MY_KEY is not set/);
  });
});
