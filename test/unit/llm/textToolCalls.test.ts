import assert from 'node:assert/strict';
import type { ChatResponse } from '../../../src/core/ports/model.js';
import { agentProtocol } from '../../../src/core/roles/llm/agentProtocol.js';
import { findTextToolCalls, textToolFormats } from '../../../src/core/roles/llm/textToolCalls.js';

const tools = ['run_command', 'message_user', 'submit'];
const find = (text: string) => findTextToolCalls(text, textToolFormats, tools, 'c');
const res = (content: string | null, toolCalls: ChatResponse['message']['toolCalls'] = []): ChatResponse => ({
  message: { content, toolCalls }, finishReason: 'stop', usage: { promptTokens: 0, completionTokens: 0, cachedTokens: 0, costUsd: 0 }, model: 'm', cached: false, latencyMs: 0,
});

describe('tool calls written as text', () => {
  it('reads Hermes/Qwen <tool_call> blocks, several per reply, and keeps the words around them', () => {
    const r = find('Let me look first.\n<tool_call>\n{"name": "run_command", "arguments": {"command": "ls"}}\n</tool_call>\n<tool_call>{"name": "message_user", "arguments": {"text": "Which file?"}}</tool_call>');
    assert.deepEqual(r.calls, [{ id: 'c0', name: 'run_command', arguments: '{"command":"ls"}' }, { id: 'c1', name: 'message_user', arguments: '{"text":"Which file?"}' }]);
    assert.equal(r.message, 'Let me look first.');
    assert.deepEqual(r.malformed, []);
  });

  it('reads an unterminated block and repairs sloppy JSON, as vLLM\'s hermes parser does', () => {
    assert.deepEqual(find("<tool_call>{'name': 'submit', 'arguments': {'summary': 'done',}}").calls, [{ id: 'c0', name: 'submit', arguments: '{"summary":"done"}' }]);
  });

  it('reads Mistral [TOOL_CALLS] in the JSON list form and the name[ARGS] form', () => {
    assert.deepEqual(find('[TOOL_CALLS][{"name": "run_command", "arguments": {"command": "pwd"}}]').calls, [{ id: 'c0', name: 'run_command', arguments: '{"command":"pwd"}' }]);
    assert.deepEqual(find('Sure.[TOOL_CALLS]run_command[ARGS]{"command": "ls"}[TOOL_CALLS]submit[ARGS]{}').calls.map((c) => [c.name, c.arguments]), [['run_command', '{"command":"ls"}'], ['submit', '{}']]);
  });

  it('reads a bare JSON call (Llama 3 "parameters"), fenced or not, but only for a known tool', () => {
    assert.deepEqual(find('{"name": "run_command", "parameters": {"command": "cat a.txt"}}').calls, [{ id: 'c0', name: 'run_command', arguments: '{"command":"cat a.txt"}' }]);
    assert.deepEqual(find('```json\n{"name": "submit", "arguments": "{\\"summary\\": \\"ok\\"}"}\n```').calls, [{ id: 'c0', name: 'submit', arguments: '{"summary": "ok"}' }]);
    assert.deepEqual(find('{"name": "Dana", "age": 3}').calls, [], 'ordinary JSON is not a call');
    assert.equal(find('{"name": "Dana", "age": 3}').message, '{"name": "Dana", "age": 3}');
  });

  it('records a marker whose call cannot be read as malformed, with the raw text', () => {
    const r = find('<tool_call>run ls please</tool_call>');
    assert.equal(r.calls.length, 0);
    assert.equal(r.malformed.length, 1);
    assert.equal(r.malformed[0]?.raw, '<tool_call>run ls please</tool_call>');
  });

  it('auto: native calls first; text calls when there are none; plain text stays a message', () => {
    const auto = agentProtocol('auto');
    const native = auto.read(res('hi', [{ id: 'n1', name: 'submit', arguments: '{}' }]), 't1_', tools);
    assert.deepEqual([native.native, native.calls.map((c) => c.id)], [true, ['n1']]);
    const text = auto.read(res('<tool_call>{"name": "submit", "arguments": {}}</tool_call>'), 't1_', tools);
    assert.deepEqual([text.native, text.calls.map((c) => c.id), text.message], [false, ['t1_0'], null]);
    const plain = auto.read(res('Which file do you mean?'), 't1_', tools);
    assert.deepEqual([plain.calls.length, plain.message], [0, 'Which file do you mean?']);
    assert.deepEqual(agentProtocol('native').read(res('<tool_call>{"name": "submit"}</tool_call>'), 't', tools).calls, [], 'native ignores text calls');
  });

  it('answers text calls in the format\'s own convention', () => {
    const calls = [{ id: 'a', name: 'run_command', arguments: '{}' }];
    assert.deepEqual(agentProtocol('hermes').results(calls, () => 'out', false), [{ role: 'user', content: '<tool_response>\nout\n</tool_response>' }]);
    assert.deepEqual(agentProtocol('auto').results(calls, () => 'out', true), [{ role: 'tool', toolCallId: 'a', content: 'out' }]);
    assert.match(agentProtocol('hermes').systemSection([{ name: 'run_command', description: 'd', parameters: {} }]) ?? '', /<tools>\n\{"type":"function","function":\{"name":"run_command"/);
  });

  it('text protocol: fenced blocks are the actions; a reply without one is malformed, with its raw text', () => {
    const text = agentProtocol('text');
    const r = text.read(res('I will look.\n```bash\nls -la\n```\nthen ask\n```message\nWhich one?\n```'), 't2_', tools);
    assert.deepEqual(r.calls, [{ id: 't2_0', name: 'run_command', arguments: '{"command":"ls -la"}' }, { id: 't2_1', name: 'message_user', arguments: '{"text":"Which one?"}' }]);
    assert.equal(r.message, 'I will look.\n\nthen ask');
    const none = text.read(res('I think the answer is 3.'), 't3_', tools);
    assert.deepEqual([none.calls.length, none.malformed[0]?.raw], [0, 'I think the answer is 3.']);
    assert.match(none.malformed[0]?.error ?? '', /no fenced block/);
    assert.match(text.read(res('```python\nprint(1)\n```'), 't', tools).malformed[0]?.error ?? '', /```python block is not an action/);
    assert.equal(text.apiTools, false);
  });
});
