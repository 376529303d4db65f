// One whole episode played by LLM roles (agent, simulated user, judge) through the real adapter and the loopback
// server, with the rollout engine and the process sandbox backend: the roles fit the engine, and every token and
// cent the server reported lands in the rollout record.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { playRollout } from '../../../src/core/rollout/engine.js';
import { systemClock } from '../../../src/core/ports/clock.js';
import { addUsage, zeroUsage } from '../../../src/core/ports/model.js';
import { createLlmAgent } from '../../../src/core/roles/llm/llmAgent.js';
import { createLlmJudge } from '../../../src/core/roles/llm/llmJudge.js';
import { createLlmUser } from '../../../src/core/roles/llm/llmUser.js';
import { agentConfigSchema } from '../../../src/core/spec/agent.js';
import { environmentSpecSchema } from '../../../src/core/spec/environment.js';
import { endpointSchema, runConfigSchema } from '../../../src/core/spec/run.js';
import { createChatModel } from '../../../src/llm/createChatModel.js';
import type { ChatModelOptions } from '../../../src/llm/createChatModel.js';
import { createRequestCache } from '../../../src/llm/requestCache.js';
import type { ChatModel } from '../../../src/core/ports/model.js';
import type { RolloutRecord } from '../../../src/core/rollout/trajectory.js';
import { createSandboxBackend } from '../../../src/sandbox/factory.js';
import { reply, startModelServer } from '../../support/modelServer.js';
import type { MessageReply, ModelServer, ScriptedUsage } from '../../support/modelServer.js';
import { sampleEnv, sampleProfile } from '../../unit/llm/samples.js';

const env = environmentSpecSchema.parse({
  ...sampleEnv,
  sandbox: { files: [{ path: 'app.log', content: 'ERROR payments a\nERROR search b\nERROR payments c\nINFO payments d\nERROR payments e\n' }] },
});
const runDefaults = runConfigSchema.parse({ apiVersion: 'coevolve/v1', kind: 'Run', name: 'llm-episode', population: { builtinFamilies: ['log-triage'] } });

// Prices chosen so every cost is a multiple of 1/1024 USD: sums are exact in any order, so "adds up" can be `equal`.
const prices = { 'test-model': { inputPerMTok: 976.5625, outputPerMTok: 1953.125 } };

describe('an episode played by LLM roles through the rollout engine', function () {
  let server: ModelServer;
  before(async () => {
    server = await startModelServer();
  });
  after(() => server.close());

  it('asks, works, submits, is verified, rated and judged; usage and cost add up exactly', async () => {
    let n = 0;
    const usage = (): ScriptedUsage => ({ promptTokens: 100 * ++n, completionTokens: n });
    const withUsage = (r: MessageReply): MessageReply => ({ ...r, usage: usage() });
    server.script('user', withUsage(reply.text('hey, can you count the errors in app.log for me?')), withUsage(reply.text('Only the payments service matters, and the threshold is 3 errors.')));
    server.script(
      'agent',
      withUsage(reply.tool('run_command', { command: 'ls' })),
      withUsage(reply.tool('message_user', { text: 'Which service should I count?' })),
      withUsage(reply.tool('run_command', "{'command': 'grep -c \"ERROR payments\" app.log > count.txt',}")),
      withUsage(reply.tool('submit', { summary: 'Wrote the payments error count to count.txt.' })),
    );
    server.script('user-rater', withUsage(reply.json({ goalMet: true, satisfaction: 5, reason: 'It asked the right question and got it right.' })));
    server.script('judge', withUsage(reply.json({ tags: [{ tag: 'clarified_intent', steps: [4], evidence: 'asked which service' }] })));

    const model = modelFor(server);
    const record = await play(model);

    assert.equal(record.error, undefined);
    assert.equal(record.status, 'terminated');
    assert.equal(record.verifier?.reward, 1, record.verifier?.stderr);
    assert.equal(record.success, true);
    assert.deepEqual(record.tags, ['clarified_intent']);
    assert.deepEqual(record.userRating, { goalMet: true, satisfaction: 5, reason: 'It asked the right question and got it right.', stopReason: 'agent_submitted' });
    const userSteps = record.steps.filter((s) => s.source === 'user');
    assert.deepEqual(userSteps.map((s) => s.extra?.disclosedFacts), [[], ['service']]);
    assert.equal(server.pending(), 0, 'every scripted reply was used');
    assert.equal(server.count(), 8);

    // 8 calls with usage 100k prompt / k completion tokens for k = 1..8.
    const expectedTokens = { prompt: 100 * 36, completion: 36 };
    assert.equal(record.usage.promptTokens, expectedTokens.prompt);
    assert.equal(record.usage.completionTokens, expectedTokens.completion);
    const expectedCost = (expectedTokens.prompt * prices['test-model'].inputPerMTok + expectedTokens.completion * prices['test-model'].outputPerMTok) / 1e6;
    assert.equal(record.usage.costUsd, expectedCost);
    assert.deepEqual(record.usage, model.stats?.().usage);
    const perStep = record.steps.reduce((u, s) => (s.metrics ? addUsage(u, { promptTokens: s.metrics.prompt_tokens, completionTokens: s.metrics.completion_tokens, cachedTokens: s.metrics.cached_tokens, costUsd: s.metrics.cost_usd }) : u), zeroUsage());
    // Usages were assigned in script order: user 1-2, agent 3-6, rater 7, judge 8.
    assert.equal(perStep.promptTokens, 100 * (3 + 4 + 5 + 6), 'agent steps carry their own turn metrics');
  });

  it('replays a recorded episode with zero requests and the same trajectory, though the sandbox output differs', async () => {
    const cacheDir = await mkdtemp(join(tmpdir(), 'coevolve-llm-replay-'));
    try {
      server.handle('user', (r) => (r.body.messages.length <= 2 ? reply.text('please count the errors in app.log') : reply.text('Only the payments service matters, and the threshold is 3 errors.')));
      server.handle('agent', (r) => {
        const turns = r.body.messages.filter((m) => m.role === 'assistant').length;
        return [
          reply.tool('message_user', { text: 'Which service?' }),
          // Output that is never the same twice: the replay must not depend on observations.
          reply.tool('run_command', { command: 'date +%s%N; ls -la --full-time' }),
          reply.tool('run_command', { command: 'grep -c "ERROR payments" app.log > count.txt' }),
          reply.tool('submit', { summary: 'done' }),
        ][Math.min(turns, 3)] as MessageReply;
      });
      server.handle('user-rater', () => reply.json({ goalMet: true, satisfaction: 4, reason: 'fine' }));
      server.handle('judge', () => reply.json({ tags: [] }));
      const recorded = await play(modelFor(server, { cache: createRequestCache(cacheDir, 'rw') }));
      const before = server.count();
      assert.ok(before > 0 && recorded.success);

      const replayModel = modelFor(server, { cache: createRequestCache(cacheDir, 'replay'), env: {} });
      const replayed = await play(replayModel);
      assert.equal(server.count(), before, 'the replay sent no request');
      assert.equal(replayModel.stats?.().networkRequests, 0);
      // Everything the roles said and did must match; observations and wall-clock times may not.
      const untimed = (key: string, value: unknown) => (key === 'timestamp' || key === 'durationMs' || key === 'observation' ? undefined : value);
      const shape = (r: RolloutRecord) => JSON.parse(JSON.stringify({ steps: r.steps, rating: r.userRating, tags: r.tags, usage: r.usage, success: r.success }, untimed));
      assert.notDeepEqual(replayed.steps.map((st) => st.observation), recorded.steps.map((st) => st.observation), 'the date command saw another time');
      assert.deepEqual(shape(replayed), shape(recorded));
    } finally {
      await rm(cacheDir, { recursive: true, force: true });
    }
  });
});

function modelFor(server: ModelServer, options: ChatModelOptions = {}): ChatModel {
  return createChatModel(endpointSchema.parse({ name: 'local', baseUrls: [server.baseUrl], prices, maxRetries: 0 }), { kind: 'llm', endpoint: 'local', model: 'test-model', temperature: 0, maxTokens: 256 }, options);
}

function play(model: ChatModel): Promise<RolloutRecord> {
  return playRollout(
    {
      runId: 'run-1', runSeed: 1, rolloutId: 'r-1', generation: 0, pairId: 'p-1', trial: 0, hint: false,
      env, user: sampleProfile, agent: agentConfigSchema.parse({ apiVersion: 'coevolve/v1', kind: 'Agent', id: 'agent-0' }),
    },
    {
      backend: createSandboxBackend('process', { warn: () => undefined }),
      roles: { agent: createLlmAgent(model), user: createLlmUser(model), judge: createLlmJudge(model) },
      budgets: runDefaults.budgets,
      rewardWeights: runDefaults.reward,
      clock: systemClock,
    },
  );
}
