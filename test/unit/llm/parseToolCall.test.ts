import assert from 'node:assert/strict';
import { parseAgentToolCall, parseToolArguments } from '../../../src/core/roles/parseToolCall.js';

const call = (name: string, args: string) => parseAgentToolCall({ id: 'c1', name, arguments: args });

describe('tolerant tool-call parsing', () => {
  it('reads strict JSON', () => {
    assert.deepEqual(call('run_command', '{"command": "ls -la"}'), { id: 'c1', name: 'run_command', command: 'ls -la' });
  });

  it('repairs trailing commas, single quotes, unquoted keys and a missing brace', () => {
    assert.deepEqual(call('run_command', "{'command': 'grep -c ERROR app.log',}"), { id: 'c1', name: 'run_command', command: 'grep -c ERROR app.log' });
    assert.deepEqual(call('message_user', '{text: "Which threshold?"}'), { id: 'c1', name: 'message_user', text: 'Which threshold?' });
    assert.deepEqual(call('run_command', '{"command": "echo hi"'), { id: 'c1', name: 'run_command', command: 'echo hi' });
  });

  it('strips a code fence and unwraps JSON encoded twice', () => {
    assert.deepEqual(call('run_command', '```json\n{"command": "pwd"}\n```'), { id: 'c1', name: 'run_command', command: 'pwd' });
    assert.deepEqual(call('run_command', JSON.stringify(JSON.stringify({ command: 'pwd' }))), { id: 'c1', name: 'run_command', command: 'pwd' });
  });

  it('takes a bare string as the command', () => {
    assert.deepEqual(call('run_command', "cat 'a b.txt' | wc -l"), { id: 'c1', name: 'run_command', command: "cat 'a b.txt' | wc -l" });
    assert.deepEqual(call('run_command', '"ls /tmp"'), { id: 'c1', name: 'run_command', command: 'ls /tmp' });
  });

  it('accepts common aliases and an argument-less submit', () => {
    assert.deepEqual(call('run_command', '{"cmd": "ls"}'), { id: 'c1', name: 'run_command', command: 'ls' });
    assert.deepEqual(call('message_user', '{"message": "hi"}'), { id: 'c1', name: 'message_user', text: 'hi' });
    assert.deepEqual(call('submit', ''), { id: 'c1', name: 'submit', summary: '' });
    assert.deepEqual(call('submit', '{}'), { id: 'c1', name: 'submit', summary: '' });
  });

  it('turns unusable calls into invalid calls whose error says how to call the tool', () => {
    const unknown = call('bash', '{"command": "ls"}');
    assert.ok('invalid' in unknown);
    assert.match(unknown.invalid, /unknown tool "bash"; the tools are run_command/);
    const missing = call('run_command', '{"path": "x"}');
    assert.ok('invalid' in missing);
    assert.equal(missing.invalid, 'missing "command"; run_command takes {"command": "<string>"}');
    const wrongType = call('message_user', '{"text": ["a"]}');
    assert.ok('invalid' in wrongType && /must be a string, got an array/.test(wrongType.invalid));
    const broken = call('run_command', '{:}');
    assert.ok('invalid' in broken && /not valid JSON/.test(broken.invalid));
    assert.equal('rawArguments' in broken && broken.rawArguments, '{:}');
    const empty = call('run_command', '{"command": "  "}');
    assert.ok('invalid' in empty && /empty/.test(empty.invalid));
  });

  it('refuses arrays and scalars where an object is expected', () => {
    assert.deepEqual(parseToolArguments('[1,2]'), { ok: false, error: 'arguments must be a JSON object, got an array' });
    assert.deepEqual(parseToolArguments('  '), { ok: true, value: {} });
  });
});
