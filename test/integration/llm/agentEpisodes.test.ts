// Whole episodes through the rollout engine with the process backend, the real adapter and a loopback server in
// the shapes of real servers: reasoning kept on the step and out of what the user sees, tool calls written as text,
// the fenced-block text protocol, a malformed reply recorded with its raw text.
import assert from 'node:assert/strict';
import { agentPlan, agentPlanReplies, agentThoughts, modelAt, playEpisode, scriptOtherRoles } from '../../support/llmEpisodes.js';
import { reply, startModelServer, type MessageReply, type ModelServer, type ModelServerOptions, type RecordedRequest } from '../../support/modelServer.js';

async function withServer<T>(options: ModelServerOptions, fn: (server: ModelServer) => Promise<T>): Promise<T> {
  const server = await startModelServer(options);
  try {
    return await fn(server);
  } finally {
    await server.close();
  }
}

/** Every text the simulated user was sent, over the wire. */
function shownToUser(server: ModelServer): string {
  return server.requests.filter((r) => r.role === 'user').map((r) => JSON.stringify(r.body.messages)).join('\n');
}

describe('episodes against real server shapes', function () {
  this.timeout(120_000);

  it('keeps reasoning on the agent steps and out of what the simulated user is sent', () =>
    withServer({ flavor: 'vllm' }, async (server) => {
      scriptOtherRoles(server);
      server.handle('agent', agentPlan);
      const record = await playEpisode(modelAt(server));
      assert.equal(record.error, undefined);
      assert.equal(record.success, true, record.verifier?.stderr);
      const agentSteps = record.steps.filter((s) => s.source === 'agent');
      assert.deepEqual(agentSteps.map((s) => s.reasoning_content), agentThoughts);
      for (const thought of agentThoughts) assert.ok(!shownToUser(server).includes(thought), `the user saw "${thought}"`);
      assert.ok(!record.steps.some((s) => s.source === 'user' && s.message.includes('I am Dana')), "the user's own reasoning is not its message");
      assert.equal(record.models?.agent?.model, 'qwen3-8b');
      assert.equal(record.models?.agent?.toolCallFormat, 'auto');
      assert.deepEqual(record.tags, ['clarified_intent']);
    }));

  it('falls back to tools in the prompt when vLLM has no tool parser, and reads the <tool_call> text it writes', () =>
    withServer({ flavor: 'vllm', reasoningParser: false, toolParser: false }, async (server) => {
      scriptOtherRoles(server);
      server.handle('agent', agentPlan);
      const record = await playEpisode(modelAt(server));
      assert.equal(record.success, true, JSON.stringify(record.steps.map((s) => s.extra?.error)));
      const agentRequests = server.requests.filter((r) => r.role === 'agent');
      assert.match(agentRequests[0]?.sent ? '' : 'refused', /refused/, 'the first request (tools API) was refused');
      assert.ok(agentRequests.slice(1).every((r) => r.body.tools === undefined), 'after the refusal no tools API is used');
      assert.match(String(agentRequests[1]?.body.messages[0]?.content), /<tools>[\s\S]*"run_command"[\s\S]*<tool_call>/);
      assert.match(String(agentRequests.at(-1)?.body.messages.at(-1)?.content), /^<tool_response>\nexit code 0/);
      assert.deepEqual(record.steps.filter((s) => s.source === 'agent').map((s) => [s.tool_calls?.[0]?.function_name, s.reasoning_content]), [
        ['message_user', agentThoughts[0]], ['run_command', agentThoughts[1]], ['submit', agentThoughts[2]],
      ]);
    }));

  it('plays the fenced-block text protocol with no tools API', () =>
    withServer({ flavor: 'llamacpp' }, async (server) => {
      scriptOtherRoles(server);
      server.handle('agent', (r) => {
        const turns = r.body.messages.filter((m) => m.role === 'assistant').length;
        return [
          reply.text('Ask first.\n```message\nWhich service should I count?\n```'),
          reply.text('```bash\ngrep -c "ERROR payments" app.log > count.txt\n```'),
          reply.text('```submit\ncount.txt holds the count\n```'),
        ][Math.min(turns, 2)]!;
      });
      const record = await playEpisode(modelAt(server, { toolCallFormat: 'text' }), modelAt(server));
      assert.equal(record.success, true, JSON.stringify(record.steps.map((s) => s.extra?.error)));
      assert.ok(server.requests.filter((r) => r.role === 'agent').every((r) => r.body.tools === undefined));
      assert.match(String(server.requests.find((r) => r.role === 'agent')?.body.messages[0]?.content), /You have no tools API/);
      const first = record.steps.find((s) => s.source === 'agent');
      assert.equal(first?.message, 'Ask first.', 'the notes outside the block are the step message, not sent to the user');
      assert.ok(!shownToUser(server).includes('Ask first.'));
    }));

  it('records a reply that is neither a call nor a block as a malformed turn with the raw text, and goes on', () =>
    withServer({ flavor: 'sglang' }, async (server) => {
      scriptOtherRoles(server);
      const replies = [reply.text('<tool_call>grep the log please</tool_call>'), ...agentPlanReplies];
      let n = 0;
      server.handle('agent', () => replies[Math.min(n++, replies.length - 1)]!);
      const record = await playEpisode(modelAt(server));
      const bad = record.steps.find((s) => s.source === 'agent');
      assert.match(bad?.extra?.error ?? '', /a tool call needs \{"name"/);
      assert.deepEqual(bad?.tool_calls?.[0]?.arguments, { raw: '<tool_call>grep the log please</tool_call>' });
      assert.notEqual(record.status, 'error');
    }));

  describe('context windows', () => {
    // Each listing prints about 9 KB: five of them are far more than a 3,000-token window (the server counts about
    // four characters per token), so only the history policy lets the episode go on.
    const longPlan = (r: RecordedRequest): MessageReply => {
      // The model sees the fitted prompt: its place in the plan is the turns it sees plus those the note says were left out.
      const note = /\[(\d+) earlier turns? (?:was|were) left out/.exec(String(r.body.messages[1]?.content));
      const turns = r.body.messages.filter((m) => m.role === 'assistant').length + (note ? Number(note[1]) : 0);
      const plan: MessageReply[] = [
        ...Array.from({ length: 5 }, (_, i) => reply.tool('run_command', { command: `seq ${i * 2000} ${i * 2000 + 1800}` })),
        reply.tool('message_user', { text: 'Which service should I count?' }),
        reply.tool('run_command', { command: 'grep -c "ERROR payments" app.log > count.txt' }),
        reply.tool('submit', { summary: 'done' }),
      ];
      return plan[Math.min(turns, plan.length - 1)]!;
    };
    const overflowed = (server: ModelServer) => server.requests.filter((r) => !r.sent && r.role !== 'unknown');

    it('completes a rollout longer than the window under the policy, the window read from /v1/models', () =>
      withServer({ flavor: 'vllm', contextWindow: 3000 }, async (server) => {
        scriptOtherRoles(server);
        server.handle('agent', longPlan);
        const record = await playEpisode(modelAt(server));
        assert.equal(record.status, 'terminated', record.error ?? record.truncationReason);
        assert.equal(record.success, true, record.verifier?.stderr);
        assert.equal(server.modelListRequests, 1, 'the window was asked once');
        assert.deepEqual(overflowed(server).map((r) => r.role), [], 'no request exceeded the window');
        const seen = record.steps.flatMap((s) => s.observation?.results ?? []).reduce((n, r) => n + r.content.length, 0);
        assert.ok(seen / 4 > 3 * 3000, `the episode's observations (${seen} chars) are several windows long`);
        const notes = record.steps.filter((s) => s.source === 'agent').map((s) => s.extra?.context).filter((n) => n !== undefined);
        assert.ok(notes.some((n) => (n.elidedTurns ?? 0) > 0), 'earlier turns were left out');
        assert.ok(notes.some((n) => (n.cutResults ?? []).some((c) => c.toChars < c.fromChars)), 'results were cut, and the cut recorded');
        assert.ok(notes.every((n) => n.contextWindow === 3000));
        const full = record.steps.flatMap((s) => s.observation?.results ?? []).find((r) => r.content.includes('seq') || r.content.length > 8000);
        assert.ok(full, 'the trajectory keeps the full output; only the prompt was cut');
      }));

    it('learns the window from the server when the configured one is wrong, and still completes', () =>
      withServer({ flavor: 'vllm', contextWindow: 3000 }, async (server) => {
        scriptOtherRoles(server);
        server.handle('agent', longPlan);
        const record = await playEpisode(modelAt(server, { contextWindow: 100_000 }), modelAt(server));
        assert.equal(record.status, 'terminated', record.error ?? record.truncationReason);
        assert.equal(record.success, true);
        const refused = overflowed(server).filter((r) => r.role === 'agent');
        assert.equal(refused.length, 1, 'one refusal named the window; every later prompt fitted it');
      }));

    it("sizes the prompt by the token count a vLLM refusal states, and the retry fits (no guess at the ratio)", () =>
      // A server whose tokenizer is denser than the agent's first estimate (about 1.2 characters a token) and that
      // reports no usage to calibrate from: only its refusal says how many tokens the prompt had.
      withServer({ flavor: 'vllm', contextWindow: 6000 }, async (server) => {
        scriptOtherRoles(server);
        const window = 6000;
        server.handle('agent', (r) => {
          const promptTokens = Math.ceil((JSON.stringify(r.body.messages).length + (r.body.tools ? JSON.stringify(r.body.tools).length : 0)) / 1.2);
          const maxTokens = typeof r.body.max_tokens === 'number' ? r.body.max_tokens : 0;
          if (promptTokens + maxTokens > window) {
            return { status: 400, message: `This model's maximum context length is ${window} tokens. However, you requested ${promptTokens + maxTokens} tokens (${promptTokens} in the messages, ${maxTokens} in the completion). Please reduce the length of the messages or completion.` };
          }
          return { ...longPlan(r), usage: { promptTokens: 0, completionTokens: 0 } };
        });
        const record = await playEpisode(modelAt(server));
        const refused = server.requests.filter((r) => r.role === 'agent' && !r.sent);
        assert.ok(refused.length >= 1, 'the dense tokenizer refused a prompt the first estimate let through');
        assert.equal(record.status, 'terminated', `${record.truncationReason ?? ''} ${record.error ?? ''}`);
        assert.equal(record.success, true, record.verifier?.stderr);
        const agentRequests = server.requests.filter((r) => r.role === 'agent');
        for (const r of refused) assert.ok(agentRequests[agentRequests.indexOf(r) + 1]?.sent, `the retry after refusal #${r.seq} fitted`);
      }));

    it('ends a rollout that cannot fit as truncated: context, never as an error', () =>
      withServer({ flavor: 'vllm' }, async (server) => {
        scriptOtherRoles(server);
        server.handle('agent', longPlan);
        const record = await playEpisode(modelAt(server, { contextWindow: 300 }), modelAt(server));
        assert.equal(record.status, 'truncated');
        assert.equal(record.truncationReason, 'context');
        assert.equal(record.error, undefined);
        assert.ok(record.verifier, 'the verifier still ran');
        assert.ok(record.userRating, 'the user still rated the episode');
        assert.equal(server.count('agent'), 0, 'nothing that could not fit was sent');
      }));
  });
});
