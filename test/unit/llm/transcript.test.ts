import assert from 'node:assert/strict';
import { cutMiddle, describeOutcome, renderTranscript } from '../../../src/core/roles/llm/transcript.js';
import type { AtifStep } from '../../../src/core/rollout/trajectory.js';

describe('transcripts for model readers', () => {
  it('numbers steps, shows calls and results with exit codes, and cuts long output in the middle', () => {
    const steps: AtifStep[] = [
      { step_id: 1, timestamp: 't', source: 'user', message: 'count errors' },
      {
        step_id: 2, timestamp: 't', source: 'agent', message: '',
        tool_calls: [{ tool_call_id: 'c', function_name: 'run_command', arguments: { command: 'cat big.log' } }],
        observation: { results: [{ source_call_id: 'c', content: 'x'.repeat(5000), command: { exitCode: 1, durationMs: 3, timedOut: false, truncated: false, stderr: '' } }] },
        extra: { error: 'something odd' },
      },
    ];
    const text = renderTranscript(steps, { maxOutputChars: 100 });
    assert.match(text, /^\[1\] USER: count errors\n\[2\] AGENT calls run_command \{"command":"cat big\.log"\}\n\[2\] RESULT \(exit 1\): x+\n…\[\d+ chars cut\]…\nx+\n\[2\] ERROR: something odd$/);
    assert.ok(text.length < 400);
  });

  it('keeps both ends of a cut text and leaves short text alone', () => {
    const cut = cutMiddle(`HEAD${'-'.repeat(1000)}TAIL`, 60);
    assert.ok(cut.startsWith('HEAD') && cut.endsWith('TAIL') && cut.length < 100);
    assert.equal(cutMiddle('short', 60), 'short');
  });

  it('describes the outcome the way a user would learn it', () => {
    assert.equal(describeOutcome(false, undefined), 'The agent never submitted its work.');
    const v = { exitCode: 0, stdout: '', stderr: '', timedOut: false, durationMs: 1, detail: {} };
    assert.match(describeOutcome(true, { ...v, reward: 1 }), /check passed/);
    assert.match(describeOutcome(true, { ...v, reward: 0.5 }), /partly passed \(reward 0\.50\)/);
    assert.match(describeOutcome(true, { ...v, reward: 0 }), /check failed/);
  });
});
