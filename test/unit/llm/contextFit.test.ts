import assert from 'node:assert/strict';
import type { ChatMessage } from '../../../src/core/ports/model.js';
import { estimateTokens, fitToWindow, transcriptBudgetChars } from '../../../src/core/roles/llm/contextFit.js';

const output = (n: number, tag: string) => `${tag}:${'x'.repeat(n)}`;

/** system, task, then `turns` turns of a call with a long result. */
function conversation(turns: number, resultChars: number): ChatMessage[] {
  const ms: ChatMessage[] = [{ role: 'system', content: 'You are an agent.' }, { role: 'user', content: 'Task: count the errors.' }];
  for (let i = 0; i < turns; i++) {
    ms.push({ role: 'assistant', content: null, toolCalls: [{ id: `c${i}`, name: 'run_command', arguments: `{"command":"step ${i}"}` }] });
    ms.push({ role: 'tool', toolCallId: `c${i}`, content: output(resultChars, `r${i}`) });
  }
  return ms;
}

describe('the context-window history policy', () => {
  const budget = (window: number) => ({ window, reserve: 200, charsPerToken: 3 });

  it('sends a conversation that fits as it is', () => {
    const ms = conversation(2, 100);
    const fit = fitToWindow(ms, budget(10_000));
    assert.ok(fit.ok);
    assert.deepEqual(fit.messages, ms);
    assert.deepEqual(Object.keys(fit.notes).sort(), ['contextWindow', 'estimatedPromptTokens']);
  });

  it('cuts old results head-and-tail first, keeping the latest turn whole, and records each cut', () => {
    const ms = conversation(3, 6000);
    const fit = fitToWindow(ms, budget(5000));
    assert.ok(fit.ok);
    assert.deepEqual(fit.notes.cutResults?.map((c) => [c.callId, c.fromChars, c.toChars]), [['c0', 6003, 2000], ['c1', 6003, 2000]]);
    assert.equal(fit.notes.elidedTurns, undefined);
    const results = fit.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    assert.match(results[0]!, /^r0:x+\n…\[\d+ chars cut\]…\nx+$/, 'head and tail with a marker');
    assert.equal(results[2], output(6000, 'r2'), 'the latest result is whole');
    assert.ok(estimateTokens(fit.messages, 3) <= 5000 - 200);
  });

  it('then leaves out the oldest whole turns, never a call without its result, and says so in the task message', () => {
    const ms = conversation(12, 3000);
    const fit = fitToWindow(ms, budget(6000));
    assert.ok(fit.ok);
    const elided = fit.notes.elidedTurns ?? 0;
    assert.ok(elided > 0);
    assert.match(fit.messages[1]?.content ?? '', new RegExp(`\\[${elided} earlier turns were left out to fit the model's context window\\.\\]$`));
    const calls = fit.messages.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => c.id) : []));
    const answered = fit.messages.flatMap((m) => (m.role === 'tool' ? [m.toolCallId] : []));
    assert.deepEqual(calls, answered);
    assert.equal(calls[0], `c${elided}`, 'the oldest turns went first');
    assert.equal(calls.at(-1), 'c11');
  });

  it('says when nothing fits: system, task and a minimal latest turn exceed the window', () => {
    const fit = fitToWindow(conversation(1, 50_000), { window: 200, reserve: 100, charsPerToken: 3 });
    assert.ok(!fit.ok);
    assert.ok(fit.estimatedPromptTokens > fit.budgetTokens);
  });

  it('bounds one-shot transcripts by the window', () => {
    assert.equal(transcriptBudgetChars(32_000, undefined, undefined), 32_000);
    assert.equal(transcriptBudgetChars(32_000, 4096, undefined), Math.floor((4096 - 1024) * 1.25));
    assert.equal(transcriptBudgetChars(32_000, 1_000_000, undefined), 32_000);
  });
});
