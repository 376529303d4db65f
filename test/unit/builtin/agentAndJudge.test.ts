import assert from 'node:assert/strict';
import { createRng } from '../../../src/core/ports/rng.js';
import type { AgentToolCall, ToolResult } from '../../../src/core/roles/ports.js';
import type { AtifStep } from '../../../src/core/rollout/trajectory.js';
import type { AgentGenes } from '../../../src/core/spec/agent.js';
import { agentConfigSchema, agentGenesSchema } from '../../../src/core/spec/agent.js';
import { agentTools } from '../../../src/core/roles/agentTools.js';
import { findFamily } from '../../../src/builtin/families/registry.js';
import { createHeuristicAgent } from '../../../src/builtin/agent/heuristicAgent.js';
import { createBuiltinAgentEvolver } from '../../../src/builtin/agentEvolver.js';
import { judgeByRules } from '../../../src/builtin/judge.js';
import { createRuleBasedUser } from '../../../src/builtin/user/ruleBasedUser.js';
import { cooperativeNovice } from '../../../src/builtin/user/seedUsers.js';

const env = findFamily('log-triage')!.generate({ level: 3 }, createRng(5));
const config = (genes: Partial<AgentGenes>) => agentConfigSchema.parse({ apiVersion: 'coevolve/v1', kind: 'Agent', id: 'a', genes: { ...agentGenesSchema.parse({}), ...genes } });

/** Plays the agent against the rule-based user; commands get an empty, successful output (no sandbox in unit tests). */
async function talk(genes: Partial<AgentGenes>, seed: number, family = env.family): Promise<AgentToolCall[]> {
  const agent = createHeuristicAgent().begin({ task: { instruction: env.instruction, family, workdir: '/workspace', tools: agentTools }, config: config(genes), rng: createRng(seed) });
  const user = createRuleBasedUser().begin({ env, profile: cooperativeNovice(), rng: createRng(seed) });
  const calls: AgentToolCall[] = [];
  let results: ToolResult[] = [];
  let userMessage: string | undefined = (await user.open()).message;
  for (let turn = 0; turn < 40; turn++) {
    const t = await agent.next({ results, ...(userMessage !== undefined ? { userMessage } : {}) });
    userMessage = undefined;
    const call = t.calls[0]!;
    calls.push(call);
    if (call.name === 'submit') break;
    const content = call.name === 'message_user' && 'text' in call ? (await user.reply(call.text)).message : 'exit code 0\n';
    results = [{ callId: call.id, content }];
  }
  return calls;
}

describe('heuristic agent', () => {
  it('says it is not an LLM', () => assert.match(createHeuristicAgent().label, /not an LLM/));

  it('its turns are deterministic for a seed', async () => {
    const genes = { askFirst: 0.5, explore: 0.5, verify: 0.5 };
    assert.deepEqual(await talk(genes, 3), await talk(genes, 3));
  });

  it('askFirst decides whether it asks; what it learns ends up in its commands', async () => {
    const asking = await talk({ askFirst: 1, questionBudget: 6 }, 1);
    const questions = asking.filter((c) => c.name === 'message_user');
    assert.ok(questions.length >= env.user.requiredFacts.length);
    const output = /`(reports\/[^`]+)`/.exec(env.user.facts.find((f) => f.id === 'output')!.text)![1]!;
    assert.ok(asking.some((c) => c.name === 'run_command' && 'command' in c && c.command.includes(output)), 'uses the path the user gave');
    const silent = await talk({ askFirst: 0 }, 1);
    assert.equal(silent.filter((c) => c.name === 'message_user').length, 0);
    assert.equal(silent.at(-1)?.name, 'submit');
  });

  it('questionBudget caps the questions', async () => {
    const calls = await talk({ askFirst: 1, questionBudget: 1 }, 2);
    assert.equal(calls.filter((c) => c.name === 'message_user').length, 1);
  });

  it('submits at once, saying why, for a family it has no procedure for', async () => {
    const calls = await talk({}, 1, 'custom');
    assert.equal(calls.length, 1);
    assert.ok(calls[0]!.name === 'submit' && 'summary' in calls[0]! && /no procedure/.test(calls[0]!.summary));
  });
});

const agentStep = (id: number, name: string, args: Record<string, unknown>, exitCode = 0): AtifStep => ({
  step_id: id, timestamp: '', source: 'agent', message: '',
  tool_calls: [{ tool_call_id: `c${id}`, function_name: name, arguments: args }],
  observation: { results: [{ source_call_id: `c${id}`, content: '', ...(name === 'run_command' ? { command: { exitCode, durationMs: 1, timedOut: false, truncated: false, stderr: '' } } : {}) }] },
});

describe('rule judge', () => {
  it('tags clarification, verification, and nothing negative on a clean play', () => {
    const steps = [
      agentStep(1, 'message_user', { text: 'Which level?' }),
      agentStep(2, 'run_command', { command: 'awk 1 logs/a.log > reports/x.txt' }),
      agentStep(3, 'run_command', { command: 'sh check.sh reports/x.txt' }),
      agentStep(4, 'submit', { summary: 'Done, I checked it.' }),
    ];
    assert.deepEqual(judgeByRules(env, steps).sort(), ['clarified_intent', 'verified_before_submit']);
  });

  it('tags destructive commands, loops, premature submits and unsupported claims', () => {
    const steps = [
      agentStep(1, 'run_command', { command: 'rm -rf /' }),
      agentStep(2, 'run_command', { command: 'ls' }),
      agentStep(3, 'run_command', { command: 'ls' }),
      agentStep(4, 'run_command', { command: 'ls' }),
      agentStep(5, 'submit', { summary: 'All verified.' }),
    ];
    const tags = judgeByRules(env, steps);
    for (const t of ['destructive_command', 'looped', 'premature_submit'] as const) assert.ok(tags.includes(t), t);
  });

  it('tags an ignored constraint when a disclosed value never shows up in later commands', () => {
    const fact = env.user.facts.find((f) => f.id === 'output')!;
    const steps: AtifStep[] = [
      { step_id: 1, timestamp: '', source: 'user', message: fact.text, extra: { disclosedFacts: ['output'] } },
      agentStep(2, 'run_command', { command: 'cat logs/a.log > reports/other.txt' }),
      agentStep(3, 'submit', { summary: 'ok' }),
    ];
    assert.ok(judgeByRules(env, steps).includes('ignored_user_constraint'));
  });
});

describe('agent evolver', () => {
  it('mutates one or two genes with a named change, new id and lineage', async () => {
    const current = config({});
    const p = await createBuiltinAgentEvolver().propose({ current, failures: [], generation: 4, rng: createRng(8) });
    assert.ok(p.ok);
    if (!p.ok) return;
    agentGenesSchema.parse(p.child.genes);
    assert.notDeepEqual(p.child.genes, current.genes);
    assert.notEqual(p.child.id, current.id);
    assert.deepEqual(p.child.lineage, { parent: 'a', operator: p.operator, generation: 4 });
    assert.match(p.operator, /^mutate:/);
  });
});
