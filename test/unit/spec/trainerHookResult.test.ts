import assert from 'node:assert/strict';
import { SpecError } from '../../../src/core/spec/load.js';
import { parseTrainerHookResult } from '../../../src/core/spec/trainerHookResult.js';

describe('the trainer hook result', () => {
  it('reads a new agent model and address', () => {
    assert.deepEqual(parseTrainerHookResult('{"agent": {"model": "ckpt-3", "baseUrls": ["http://127.0.0.1:8001/v1"]}}', 'r.json'), {
      agent: { model: 'ckpt-3', baseUrls: ['http://127.0.0.1:8001/v1'] },
    });
    assert.deepEqual(parseTrainerHookResult('{"agent": {"model": "ckpt-3"}}\n', 'r.json'), { agent: { model: 'ckpt-3' } });
  });

  it('takes an empty file or an empty object as no change', () => {
    assert.deepEqual(parseTrainerHookResult('', 'r.json'), {});
    assert.deepEqual(parseTrainerHookResult(' \n', 'r.json'), {});
    assert.deepEqual(parseTrainerHookResult('{}', 'r.json'), {});
  });

  it('says where a misspelt field is, and what it probably meant', () => {
    const err = catchSpecError(() => parseTrainerHookResult('{\n  "agent": {\n    "modle": "ckpt-3"\n  }\n}\n', '/runs/x/artifacts/hooks/g0000.result.json'));
    assert.match(err.message, /^\/runs\/x\/artifacts\/hooks\/g0000\.result\.json:3:5: .*modle.*model/);
  });

  it('says where a value is wrong', () => {
    const err = catchSpecError(() => parseTrainerHookResult('{"agent": {"baseUrls": ["not a url"]}}', 'r.json'));
    assert.match(err.message, /^r\.json:1:25: .*baseUrls\[0\]/);
    assert.match(catchSpecError(() => parseTrainerHookResult('{"agent": {"model": ""}}', 'r.json')).message, /^r\.json:1:21: /);
  });

  it('says where the JSON is broken', () => {
    const err = catchSpecError(() => parseTrainerHookResult('{"agent": {"model": "ckpt-3"}', 'r.json'));
    assert.match(err.message, /^r\.json:1:\d+: not valid JSON/);
  });

  it('refuses a result that is not an object, or is too large', () => {
    assert.match(catchSpecError(() => parseTrainerHookResult('["ckpt-3"]', 'r.json')).message, /^r\.json:1:1: /);
    assert.match(catchSpecError(() => parseTrainerHookResult(`{"agent": {"model": "${'x'.repeat(70_000)}"}}`, 'r.json')).message, /at most 65536 bytes/);
  });
});

function catchSpecError(fn: () => unknown): SpecError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof SpecError, `a SpecError, got ${String(err)}`);
    return err;
  }
  assert.fail('no error');
}
