import * as assert from 'node:assert/strict';
import { formatCommandOutput } from '../../../src/core/rollout/engine.js';
import { shownOutput } from '../../../src/webview/render/stepView.js';

describe('terminal blocks of the rollout viewer', () => {
  const run = (exitCode: number, stdout: string, extra: { timedOut?: boolean; truncated?: boolean; stderr?: string } = {}) => {
    const r = { exitCode, stdout, stderr: extra.stderr ?? '', timedOut: extra.timedOut ?? false, truncated: extra.truncated ?? false, durationMs: 3 };
    return { content: formatCommandOutput(r as never), cmd: r };
  };

  it('drop the "exit code N" line the agent was shown, which the block draws as its exit badge', () => {
    const ok = run(0, 'hello\n');
    assert.equal(ok.content, 'exit code 0\nhello', 'the engine heads the output with the exit code');
    assert.equal(shownOutput(ok.content, ok.cmd), 'hello');
    const slow = run(124, '', { timedOut: true, truncated: true, stderr: 'late\n' });
    assert.equal(shownOutput(slow.content, slow.cmd), '[stderr]\nlate');
    assert.equal(shownOutput(run(2, '').content, { exitCode: 2 }), '');
  });

  it('keep everything else as the agent saw it: another code, a header in the middle, no command record', () => {
    assert.equal(shownOutput('exit code 0\nhello', { exitCode: 1 }), 'exit code 0\nhello');
    assert.equal(shownOutput('hello\nexit code 0', { exitCode: 0 }), 'hello\nexit code 0');
    assert.equal(shownOutput('exit code 0\nhello', undefined), 'exit code 0\nhello');
  });
});
