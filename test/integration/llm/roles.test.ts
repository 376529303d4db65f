// Each LLM role plays its part against the loopback server, through the real adapter: the requests it sends
// (role marker, tools, streaming, response_format, repair messages) and what it makes of the answers.
import assert from 'node:assert/strict';
import { createRng } from '../../../src/core/ports/rng.js';
import { agentTools } from '../../../src/core/roles/agentTools.js';
import { askModel, startConversation } from '../../../src/core/roles/llm/agentConversation.js';
import { estimateTokens, initialCharsPerToken } from '../../../src/core/roles/llm/contextFit.js';
import { createLlmAgent } from '../../../src/core/roles/llm/llmAgent.js';
import { createLlmAgentEvolver } from '../../../src/core/roles/llm/llmAgentEvolver.js';
import { createLlmDesigner } from '../../../src/core/roles/llm/llmDesigner.js';
import { createLlmJudge } from '../../../src/core/roles/llm/llmJudge.js';
import { createLlmUser } from '../../../src/core/roles/llm/llmUser.js';
import { createLlmUserEvolver } from '../../../src/core/roles/llm/llmUserEvolver.js';
import type { AgentToolCall } from '../../../src/core/roles/ports.js';
import type { AtifStep } from '../../../src/core/rollout/trajectory.js';
import { agentConfigSchema } from '../../../src/core/spec/agent.js';
import { endpointSchema } from '../../../src/core/spec/run.js';
import { isContextWindowExceeded } from '../../../src/core/ports/model.js';
import type { ChatModel } from '../../../src/core/ports/model.js';
import { createChatModel } from '../../../src/llm/createChatModel.js';
import { reply, startModelServer } from '../../support/modelServer.js';
import type { ModelServer } from '../../support/modelServer.js';
import { sampleEnv, sampleProfile } from '../../unit/llm/samples.js';

const agentConfig = agentConfigSchema.parse({ apiVersion: 'coevolve/v1', kind: 'Agent', id: 'agent-0', playbook: ['Ask before guessing a threshold.'] });
const stats = { successRate: 0.9, regret: 0, plays: 8, meanReward: 0.9 };
const steps: AtifStep[] = [
  { step_id: 1, timestamp: '2026-01-01T00:00:00Z', source: 'user', message: 'Count the errors please.' },
  { step_id: 2, timestamp: '2026-01-01T00:00:01Z', source: 'agent', message: '', tool_calls: [{ tool_call_id: 'c1', function_name: 'submit', arguments: { summary: 'done' } }] },
];

describe('LLM roles against the loopback server', function () {
  let server: ModelServer;
  let model: ChatModel;

  beforeEach(async () => {
    server = await startModelServer();
    model = createChatModel(endpointSchema.parse({ name: 'local', baseUrls: [server.baseUrl], maxRetries: 0 }), { kind: 'llm', endpoint: 'local', model: 'test-model', temperature: 0.7, maxTokens: 512 });
  });
  afterEach(() => server.close());

  it('agent: streams turns with the three tools, answers every call and turns malformed arguments into an invalid call', async () => {
    server.script(
      'agent',
      { content: 'Let me look.', toolCalls: [{ name: 'run_command', arguments: { command: 'ls' } }] },
      { toolCalls: [{ name: 'run_command', arguments: '{:}' }] },
      reply.tool('message_user', { text: 'Which service?' }),
      reply.tool('submit', "{'summary': 'counted the payments errors',}"),
    );
    const episode = createLlmAgent(model).begin({
      task: { instruction: sampleEnv.instruction, family: sampleEnv.family, workdir: '/workspace', tools: agentTools, hint: 'Filter by service first.' },
      config: agentConfig,
      rng: createRng(7),
    });
    const t1 = await episode.next({ results: [], userMessage: 'Can you count the errors?' });
    assert.equal(t1.message, 'Let me look.');
    const c1 = t1.calls[0] as AgentToolCall;
    assert.deepEqual({ ...c1, id: undefined }, { id: undefined, name: 'run_command', command: 'ls' });
    assert.ok(t1.usage.promptTokens > 0);

    const t2 = await episode.next({ results: [{ callId: c1.id, content: 'app.log' }] });
    const c2 = t2.calls[0] as AgentToolCall;
    assert.ok('invalid' in c2, 'malformed arguments become an invalid call');
    const t3 = await episode.next({ results: [{ callId: c2.id, content: `error: ${c2.invalid}` }] });
    const c3 = t3.calls[0] as AgentToolCall;
    assert.ok(c3.name === 'message_user' && 'text' in c3 && c3.text === 'Which service?');
    const t4 = await episode.next({ results: [{ callId: c3.id, content: 'Only payments.' }] });
    assert.deepEqual(t4.calls.map((c) => ('summary' in c ? c.summary : c)), ['counted the payments errors']);

    assert.equal(server.count('agent'), 4);
    assert.ok(server.requests.every((r) => r.stream), 'the agent streams');
    const first = server.requests[0]!.body;
    assert.deepEqual((first.tools as { function: { name: string } }[]).map((t) => t.function.name), ['run_command', 'message_user', 'submit']);
    assert.match(String(first.messages[0]?.content), /Lessons from earlier episodes:\n- Ask before guessing a threshold\./);
    assert.match(String(first.messages[1]?.content), /^Task:\n.*\n\nThe user says:\nCan you count the errors\?\n\nHINT: Filter by service first\.$/s);
    const toolMessages = server.requests[3]!.body.messages.filter((m) => m.role === 'tool');
    assert.deepEqual(toolMessages.map((m) => m.tool_call_id), [c1.id, c2.id, c3.id]);
    assert.match(String(toolMessages[1]?.content), /^error: arguments are not valid JSON/);
    assert.equal(first.seed, server.requests[3]!.body.seed, 'one seed per episode');
  });

  it('agent: a prompt that cannot fit the window fails once, stating its true estimated size and the window, and is not sent', async () => {
    const small = createChatModel(endpointSchema.parse({ name: 'local', baseUrls: [server.baseUrl], maxRetries: 0 }), { kind: 'llm', endpoint: 'local', model: 'test-model', maxTokens: 200, contextWindow: 1000 });
    const conv = startConversation(small, 'auto', {
      task: { instruction: sampleEnv.instruction, family: sampleEnv.family, workdir: '/workspace', tools: agentTools },
      config: agentConfig,
      rng: createRng(7),
    });
    // A task message alone several times the window: nothing the history policy may cut makes it fit.
    conv.messages.push({ role: 'user', content: 'x'.repeat(12_000) });
    const trueEstimate = estimateTokens(conv.messages, initialCharsPerToken);
    await assert.rejects(askModel(conv, undefined), (e: unknown) => {
      assert.ok(isContextWindowExceeded(e), String(e));
      assert.match(e.message, new RegExp(`about ${trueEstimate} tokens`), e.message);
      assert.match(e.message, /context window of 1000 tokens/, e.message);
      assert.match(e.message, /llm local\/test-model/, e.message);
      return true;
    });
    assert.equal(conv.charsPerToken, initialCharsPerToken, 'the size estimate was not scaled for a retry');
    assert.equal(server.count(), 0, 'nothing that could not fit was sent');
  });

  it('user: opens, discloses facts, stops on ###STOP###, and rates with a repaired structured output', async () => {
    server.script('user', reply.text('hey, can you count the errors in the log?'), reply.text('Only the payments service matters, and the threshold is 3 errors.'), reply.text('Perfect, thanks! ###STOP###'));
    server.script('user-rater', reply.json({ goalMet: true, satisfaction: 9, reason: 'great' }), reply.json({ goalMet: true, satisfaction: 5, reason: 'It was done right.' }));
    const episode = createLlmUser(model).begin({ env: sampleEnv, profile: sampleProfile, rng: createRng(1) });
    const open = await episode.open();
    assert.equal(open.message, 'hey, can you count the errors in the log?');
    assert.equal(open.stop, undefined);
    const answer = await episode.reply('Which service should I look at?');
    assert.deepEqual(answer.disclosedFacts, ['service']);
    const last = await episode.reply('Done: there are 3 payments errors.');
    assert.deepEqual([last.message, last.stop], ['Perfect, thanks!', 'done']);

    const system = String(server.requests[0]!.body.messages[0]?.content);
    assert.match(system, /^\[coevolve-role: user\]/);
    assert.match(system, /Only the payments service matters/);
    const { rating, usage } = await episode.rate({ steps, submitted: true, verifier: { exitCode: 0, stdout: '', stderr: '', timedOut: false, durationMs: 1, reward: 1, detail: {} } });
    assert.deepEqual(rating, { goalMet: true, satisfaction: 5, reason: 'It was done right.', stopReason: 'done' });
    assert.ok(usage.promptTokens > 0);
    const raterRequests = server.requests.filter((r) => r.role === 'user-rater');
    assert.equal(raterRequests.length, 2);
    assert.equal(raterRequests[0]!.body.response_format?.type, 'json_schema');
    assert.match(String(raterRequests[1]!.body.messages.at(-1)?.content), /satisfaction: Too big: expected number to be <=5/);
  });

  it('user: runs out of patience by counting, without asking the model', async () => {
    server.handle('user', () => reply.text('hmm, go on'));
    const episode = createLlmUser(model).begin({ env: sampleEnv, profile: sampleProfile, rng: createRng(1) });
    await episode.open();
    for (let i = 0; i < sampleProfile.behavior.patience; i++) assert.equal((await episode.reply(`question ${i}`)).stop, undefined);
    const before = server.count();
    const out = await episode.reply('one more question');
    assert.equal(out.stop, 'out_of_patience');
    assert.equal(server.count(), before);
    server.script('user-rater', reply.text('not json'), reply.text('still not'), reply.text('nope'));
    const { rating } = await episode.rate({ steps, submitted: false });
    assert.equal(rating.stopReason, 'out_of_patience');
    assert.equal(rating.goalMet, false);
    assert.match(rating.reason, /rating fell back to the verifier verdict/);
  });

  it('designer: repairs an invalid child from positioned problems, then returns it with a new id and lineage', async () => {
    const { lineage: _l, ...parent } = sampleEnv;
    const invalid = { ...parent, titel: 'typo', knobs: { ...parent.knobs, horizon: 5 }, user: { ...parent.user, requiredFacts: ['service', 'deadline'] } };
    const valid = { ...parent, title: 'Count errors across two logs', knobs: { ...parent.knobs, horizon: 30 }, difficulty: 2 };
    server.script('designer', reply.json(invalid), reply.json(valid));
    const proposal = await createLlmDesigner(model).propose({ parent: sampleEnv, direction: 'harder', knob: 'horizon', stats, generation: 3, rng: createRng(5) });
    assert.ok(proposal.ok, proposal.ok ? '' : proposal.reason);
    assert.equal(proposal.repairs, 1);
    assert.equal(proposal.operator, 'llm:harder:horizon');
    assert.match(proposal.child.id, /^log-triage-1-g3-[0-9a-f]{6}$/);
    assert.deepEqual(proposal.child.lineage, { parent: 'log-triage-1', operator: 'llm:harder:horizon', generation: 3 });
    assert.equal(proposal.child.knobs.horizon, 30);
    const repair = String(server.requests[1]!.body.messages.at(-1)?.content);
    assert.match(repair, /titel: unknown key "titel" at the top level; did you mean "title"\?/, 'problems come from the spec validator');
    assert.equal(server.requests[0]!.body.response_format?.json_schema?.name, 'environment_spec');
  });

  it('designer: rejects with the reason after the last repair', async () => {
    const { lineage: _l, ...parent } = sampleEnv;
    server.script('designer', reply.json(parent), reply.json(parent), reply.json(parent));
    const proposal = await createLlmDesigner(model, { maxRepairs: 2 }).propose({ parent: sampleEnv, direction: 'easier', stats, generation: 1, rng: createRng(5) });
    assert.ok(!proposal.ok);
    assert.match(proposal.reason, /^designer output rejected: output still invalid after 2 repairs: \(root\): the child is identical to its parent/);
    assert.equal(server.count('designer'), 3);
    assert.ok(proposal.usage.completionTokens > 0);
  });

  it('judge: tags from the rubric vocabulary only, after repairing an unknown tag', async () => {
    server.script(
      'judge',
      reply.json({ tags: [{ tag: 'rude', steps: [1], evidence: 'x' }] }),
      reply.json({ tags: [{ tag: 'premature_submit', steps: [2], evidence: 'submitted at once' }, { tag: 'premature_submit', steps: [2], evidence: 'again' }] }),
    );
    const { tags } = await createLlmJudge(model).judge({ env: sampleEnv, steps });
    assert.deepEqual(tags, ['premature_submit']);
    assert.match(String(server.requests[0]!.body.messages[0]?.content), /- clarified_intent: Asked the user/);
    assert.match(String(server.requests[0]!.body.messages[1]?.content), /\[2\] AGENT calls submit/);
  });

  it('user evolver: proposes a harder user with a new id', async () => {
    const { lineage: _l, ...parent } = sampleProfile;
    server.script('user-evolver', reply.json({ ...parent, behavior: { ...parent.behavior, cooperativeness: 0.4 } }));
    const proposal = await createLlmUserEvolver(model).propose({ parent: sampleProfile, direction: 'harder', stats, generation: 2, rng: createRng(3) });
    assert.ok(proposal.ok);
    assert.equal(proposal.child.behavior.cooperativeness, 0.4);
    assert.match(proposal.child.id, /^dana-g2-[0-9a-f]{6}$/);
    assert.equal(proposal.child.lineage.parent, 'dana');
  });

  it('agent evolver: a candidate with a revised playbook from failed trajectories', async () => {
    server.script(
      'agent-evolver',
      reply.json({ diagnosis: 'same', playbook: ['Ask before guessing a threshold.'], change: 'none' }),
      reply.json({ diagnosis: 'It submitted without asking which service.', playbook: ['Ask before guessing a threshold.', 'When a log mixes services, ask which one matters.'], change: 'added: ask which service' }),
    );
    const proposal = await createLlmAgentEvolver(model).propose({ current: agentConfig, failures: [{ env: sampleEnv, steps, reward: 0 }], generation: 4, rng: createRng(9) });
    assert.ok(proposal.ok, proposal.ok ? '' : proposal.reason);
    assert.equal(proposal.repairs, 1, 'an unchanged playbook is sent back');
    assert.deepEqual(proposal.child.playbook, ['Ask before guessing a threshold.', 'When a log mixes services, ask which one matters.']);
    assert.equal(proposal.child.lineage.parent, 'agent-0');
    assert.equal(proposal.child.lineage.operator, 'llm:reflect: added: ask which service');
    assert.match(String(server.requests[0]!.body.messages[1]?.content), /Episode 1 \(task "Count errors", reward 0\.00\)/);
  });
});
