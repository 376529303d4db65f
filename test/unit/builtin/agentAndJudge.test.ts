import assert from 'node:assert/strict';
import { createRng } from '../../../src/core/ports/rng.js';
import type { AgentToolCall, ToolResult } from '../../../src/core/roles/ports.js';
import type { AtifStep } from '../../../src/core/rollout/trajectory.js';
import type { AgentGenes } from '../../../src/core/spec/agent.js';
import { agentConfigSchema, agentGenesSchema } from '../../../src/core/spec/agent.js';
import { agentTools } from '../../../src/core/roles/agentTools.js';
import { findFamily } from '../../../src/builtin/families/registry.js';
import { resolveKnobs } from '../../../src/builtin/families/family.js';
import type { EnvironmentSpec } from '../../../src/core/spec/environment.js';
import { createHeuristicAgent } from '../../../src/builtin/agent/heuristicAgent.js';
import { compoundMove, createBuiltinAgentEvolver, diagnosedMutation, diagnosisWeight, geneMoves, geneSteps, moveWeights, targetedIdiom } from '../../../src/builtin/agentEvolver.js';
import { diagnoseFailure } from '../../../src/builtin/agentDiagnosis.js';
import { judgeByRules } from '../../../src/builtin/judge.js';
import { createRuleBasedUser } from '../../../src/builtin/user/ruleBasedUser.js';
import { cooperativeNovice } from '../../../src/builtin/user/seedUsers.js';

const env = findFamily('log-triage')!.generate({ level: 3 }, createRng(5));
const config = (genes: Partial<AgentGenes>) => agentConfigSchema.parse({ apiVersion: 'coevolve/v1', kind: 'Agent', id: 'a', genes: { ...agentGenesSchema.parse({}), ...genes } });

/**
 * Answers the agent's looking-around commands from the spec's files (`ls DIR`, `ls -la DIR`, `head -n N FILE`,
 * `cat FILE`); everything else gets an empty, successful output. No sandbox in unit tests: the policy is under test.
 */
function workspace(spec: EnvironmentSpec): (command: string) => string {
  const files = new Map(spec.sandbox.files.map((f) => [f.path, f.content]));
  return (command) => {
    const ls = /^ls (-la )?(\S+)$/.exec(command);
    if (ls) {
      const dir = ls[2]!;
      const entries = [...new Set([...files.keys()].filter((p) => p.startsWith(`${dir}/`)).map((p) => p.slice(dir.length + 1).split('/')[0]!))];
      const isDir = (e: string) => [...files.keys()].some((p) => p.startsWith(`${dir}/${e}/`));
      return `exit code 0\n${entries.map((e) => (ls[1] ? `${isDir(e) ? 'd' : '-'}rw-r--r-- 1 u u 10 Jan 1 00:00 ${e}` : e)).join('\n')}\n`;
    }
    const head = /^head -n (\d+) '([^']+)'$/.exec(command);
    if (head) return `exit code 0\n${(files.get(head[2]!) ?? '').split('\n').slice(0, Number(head[1])).join('\n')}\n`;
    const cat = /^cat '([^']+)'$/.exec(command);
    if (cat) return files.has(cat[1]!) ? `exit code 0\n${files.get(cat[1]!)}` : 'exit code 1\n';
    return 'exit code 0\n';
  };
}

/** Plays the agent against the rule-based user on `spec`, commands answered by `workspace(spec)`. */
async function talk(genes: Partial<AgentGenes>, seed: number, family = env.family, spec: EnvironmentSpec = env, hint?: string): Promise<AgentToolCall[]> {
  const task = { instruction: spec.instruction, family, workdir: '/workspace', tools: agentTools, ...(hint !== undefined ? { hint } : {}) };
  const agent = createHeuristicAgent().begin({ task, config: config(genes), rng: createRng(seed) });
  const user = createRuleBasedUser().begin({ env: spec, profile: cooperativeNovice(), rng: createRng(seed) });
  const answer = workspace(spec);
  const calls: AgentToolCall[] = [];
  let results: ToolResult[] = [];
  let userMessage: string | undefined = (await user.open()).message;
  for (let turn = 0; turn < 40; turn++) {
    const t = await agent.next({ results, ...(userMessage !== undefined ? { userMessage } : {}) });
    userMessage = undefined;
    const call = t.calls[0]!;
    calls.push(call);
    if (call.name === 'submit') break;
    const content = call.name === 'message_user' && 'text' in call ? (await user.reply(call.text)).message : answer('command' in call ? call.command : '');
    results = [{ callId: call.id, content }];
  }
  return calls;
}

/**
 * The agent's trace as the engine records it (what it said, what it called), played like `talk` but with a workspace
 * whose check.sh can be made to fail: the agent evolver reads exactly this.
 */
async function trace(genes: Partial<AgentGenes>, seed: number, opts: { checkFails?: boolean; spec?: EnvironmentSpec } = {}): Promise<AtifStep[]> {
  const spec = opts.spec ?? env;
  const agent = createHeuristicAgent().begin({ task: { instruction: spec.instruction, family: spec.family, workdir: '/workspace', tools: agentTools }, config: config(genes), rng: createRng(seed) });
  const user = createRuleBasedUser().begin({ env: spec, profile: cooperativeNovice(), rng: createRng(seed) });
  const answer = workspace(spec);
  const steps: AtifStep[] = [];
  let results: ToolResult[] = [];
  let userMessage: string | undefined = (await user.open()).message;
  for (let turn = 0; turn < 40; turn++) {
    const t = await agent.next({ results, ...(userMessage !== undefined ? { userMessage } : {}) });
    userMessage = undefined;
    const call = t.calls[0]!;
    const { id, name, ...args } = call as AgentToolCall & Record<string, unknown>;
    steps.push({ step_id: turn + 1, timestamp: '', source: 'agent', message: t.message ?? '', tool_calls: [{ tool_call_id: id, function_name: name, arguments: args }] });
    if (call.name === 'submit') break;
    const command = 'command' in call ? call.command : '';
    const content = call.name === 'message_user' && 'text' in call ? (await user.reply(call.text)).message : opts.checkFails && command.startsWith('sh check.sh') ? 'exit code 1\nproblem: line 2 differs\n' : answer(command);
    steps[steps.length - 1]!.observation = { results: [{ source_call_id: id, content }] };
    results = [{ callId: call.id, content }];
  }
  return steps;
}

const commands = (calls: AgentToolCall[]): string[] => calls.flatMap((c) => (c.name === 'run_command' && 'command' in c ? [c.command] : []));
const messages = (calls: AgentToolCall[]): string[] => calls.flatMap((c) => (c.name === 'message_user' && 'text' in c ? [c.text] : []));

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

  it('asks about each unknown point; with fewer messages than points, the last message asks about all that remain', async () => {
    const all = findFamily('csv-report')!.generate({ knobs: { ...resolveKnobs(findFamily('csv-report')!, { level: 1 }), hiddenState: 3 }, contentSeed: 9 }, createRng(0));
    const asked = messages(await talk({ askFirst: 1, questionBudget: 2 }, 1, all.family, all));
    assert.equal(asked.length, 2);
    assert.equal(asked[1]!.split('?').length - 1, 2, `the second message asks two questions: ${asked[1]}`);
    const none = messages(await talk({ askFirst: 0, questionBudget: 5 }, 1, all.family, all));
    assert.deepEqual(none, []);
  });

  it('looks at each candidate input with probability explore, and works on every candidate it did not see to be a decoy', async () => {
    const family = findFamily('log-triage')!;
    const spec = family.generate({ knobs: { ...resolveKnobs(family, { level: 2 }), distractors: 4 }, contentSeed: 12 }, createRng(0));
    const live = spec.sandbox.files.find((f) => f.path.startsWith('logs/') && !f.content.startsWith('# rotated'))!.path;
    const decoys = spec.sandbox.files.filter((f) => f.content.startsWith('# rotated')).map((f) => f.path);
    const careful = commands(await talk({ explore: 1, askFirst: 1, questionBudget: 3 }, 2, spec.family, spec));
    assert.equal(careful.filter((c) => c.startsWith('head -n 1')).length, decoys.length + 1);
    const solution = careful.find((c) => c.includes('.work/lines.txt'))!;
    assert.ok(solution.includes(live) && decoys.every((d) => !solution.includes(d)), solution);
    const careless = commands(await talk({ explore: 0, askFirst: 1, questionBudget: 3 }, 2, spec.family, spec));
    assert.equal(careless.filter((c) => c.startsWith('head -n 1')).length, 0);
    assert.ok(decoys.every((d) => careless.find((c) => c.includes('.work/lines.txt'))!.includes(d)));
  });

  it('takes a decoy it looked at for the real input one time in ten (carelessness.spot), never in a hint play', async () => {
    const family = findFamily('log-triage')!;
    const spec = family.generate({ knobs: { ...resolveKnobs(family, { level: 2 }), distractors: 4 }, contentSeed: 12 }, createRng(0));
    const decoys = spec.sandbox.files.filter((f) => f.content.startsWith('# rotated')).map((f) => f.path);
    const taken = async (hint?: string): Promise<number> => {
      let n = 0;
      for (let seed = 0; seed < 40; seed++) {
        const solution = commands(await talk({ explore: 1, askFirst: 1, questionBudget: 3 }, seed, spec.family, spec, hint)).find((c) => c.includes('.work/lines.txt'))!;
        n += decoys.filter((d) => solution.includes(d)).length;
      }
      return n;
    };
    // 160 looks at a decoy: 16 expected at spot 0.9 (binomial sd 3.8); 0 would mean it sees through every one.
    const n = await taken();
    assert.ok(n >= 6 && n <= 30, `${n} of 160 decoys taken`);
    assert.equal(await taken('The live log is the one without the rotated header.'), 0);
  });

  it('keeps its other decisions when one more decoy is added: paired plays stay paired', async () => {
    const family = findFamily('csv-report')!;
    const at = (d: number) => family.generate({ knobs: { ...resolveKnobs(family, { level: 2 }), distractors: d }, contentSeed: 21 }, createRng(0));
    for (let seed = 0; seed < 10; seed++) {
      const looked = async (d: number) => commands(await talk({ explore: 0.5, askFirst: 0.5 }, seed, family.name, at(d))).filter((c) => c.startsWith('head -n 2'));
      const [fewer, more] = [await looked(2), await looked(3)];
      assert.ok(fewer.every((c) => more.includes(c)), `seed ${seed}: ${fewer.join('; ')} ⊄ ${more.join('; ')}`);
    }
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
  it('mutates one gene by one step, with a named change, new id and lineage', async () => {
    const current = config({});
    const p = await createBuiltinAgentEvolver().propose({ current, failures: [], generation: 4, rng: createRng(8) });
    assert.ok(p.ok);
    if (!p.ok) return;
    agentGenesSchema.parse(p.child.genes);
    const changed = (Object.keys(current.genes) as (keyof AgentGenes)[]).filter((g) => p.child.genes[g] !== current.genes[g]);
    assert.equal(changed.length, 1);
    assert.notEqual(p.child.id, current.id);
    assert.deepEqual(p.child.lineage, { parent: 'a', operator: p.operator, generation: 4 });
    assert.match(p.operator, /^mutate:/);
  });

  it('lists every single-gene step at its fixed size, stopping at the bounds', () => {
    const r2 = (x: number) => Math.round(x * 100) / 100;
    const genes = agentGenesSchema.parse({ askFirst: 0.95, questionBudget: 0, explore: 0.5, verify: 0.1, idiom: 'awk', persistence: 10 });
    const moves = geneMoves(genes).map((m) => m.change);
    assert.deepEqual(moves, [
      `askFirst 0.95->1`, `askFirst 0.95->${r2(0.95 - geneSteps.askFirst)}`,
      `explore 0.5->${r2(0.5 + geneSteps.explore)}`, `explore 0.5->${r2(0.5 - geneSteps.explore)}`,
      `verify 0.1->${r2(0.1 + geneSteps.verify)}`, 'verify 0.1->0',
      'questionBudget 0->1', 'persistence 10->9',
      'idiom awk->grep', 'idiom awk->sed', 'idiom awk->shell',
    ]);
  });

  const withFeedback = (feedback: number): EnvironmentSpec => findFamily('log-triage')!.generate({ knobs: { ...resolveKnobs(findFamily('log-triage')!, { level: 3 }), feedback } }, createRng(5));
  // No check.sh offered: verify 0 never checks.
  const noCheck = withFeedback(0);

  it('diagnoses a failed play from its trace: facts it assumed, a solution it never checked, a check still failing after its last retry', async () => {
    // Level 3 log-triage hides facts; with askFirst 0 it asks nothing and says what it assumed.
    assert.ok(diagnoseFailure(await trace({ askFirst: 0, verify: 1 }, 3)).includes('assumed'));
    assert.ok(!diagnoseFailure(await trace({ askFirst: 1, questionBudget: 6, verify: 1 }, 3)).includes('assumed'));
    const unchecked = diagnoseFailure(await trace({ askFirst: 1, questionBudget: 6, verify: 0 }, 3, { spec: noCheck }));
    assert.deepEqual(unchecked, ['unchecked']);
    const spec = withFeedback(2);
    assert.ok(spec.instruction.includes('check.sh'), 'this task offers check.sh');
    assert.deepEqual(diagnoseFailure(await trace({ askFirst: 1, questionBudget: 6, verify: 1, persistence: 1 }, 3, { spec, checkFails: true })), ['outOfRetries']);
    // The same play with a passing check: retrying would not have helped, so no retry is blamed.
    assert.deepEqual(diagnoseFailure(await trace({ askFirst: 1, questionBudget: 6, verify: 1, persistence: 1 }, 3, { spec })), []);
  });

  it('diagnoses an input it never looked at when its listing showed several candidates (read with the family playbook)', async () => {
    const decoys = findFamily('log-triage')!.generate({ knobs: { ...resolveKnobs(findFamily('log-triage')!, { level: 3 }), distractors: 2 } }, createRng(5));
    const blind = await trace({ askFirst: 1, questionBudget: 6, verify: 1, explore: 0 }, 3, { spec: decoys });
    assert.ok(diagnoseFailure(blind, decoys.family).includes('unexplored'));
    assert.ok(!diagnoseFailure(blind).includes('unexplored'), 'without the family the listing cannot be read');
    const looked = await trace({ askFirst: 1, questionBudget: 6, verify: 1, explore: 1 }, 3, { spec: decoys });
    assert.ok(!diagnoseFailure(looked, decoys.family).includes('unexplored'));
    // One candidate only: nothing to tell apart, so not looking is no cause.
    const single = findFamily('log-triage')!.generate({ knobs: { ...resolveKnobs(findFamily('log-triage')!, { level: 3 }), distractors: 0 } }, createRng(5));
    assert.ok(!diagnoseFailure(await trace({ askFirst: 1, questionBudget: 6, verify: 1, explore: 0 }, 3, { spec: single }), single.family).includes('unexplored'));
  });

  it('proposes the compound step first: one step up of every gene the failures name, at once; then single steps', async () => {
    const genes = agentGenesSchema.parse({ askFirst: 0.9, questionBudget: 2, explore: 0.9, verify: 0.6, idiom: 'grep', persistence: 1 });
    const unchecked = await trace({ ...genes, askFirst: 1, questionBudget: 6, verify: 0 }, 3, { spec: noCheck });
    const assumed = await trace({ ...genes, askFirst: 0, verify: 1 }, 3);
    assert.ok(diagnoseFailure(assumed).includes('assumed'));
    const c = compoundMove(genes, [{ steps: unchecked }, { steps: unchecked }, { steps: assumed }])!;
    assert.equal(c.change, 'askFirst 0.9->1 + verify 0.6->0.8 + questionBudget 2->3', 'in gene order');
    assert.equal(compoundMove(genes, [{ steps: assumed }, { steps: assumed }, { steps: unchecked }])!.change, c.change, 'the same compound has one name whatever the counts');
    assert.deepEqual(c.genes, { ...genes, verify: 0.8, askFirst: 1, questionBudget: 3 });
    assert.equal(compoundMove(genes, [{ steps: unchecked }]), undefined, 'one named gene is a single step, not a compound');
    assert.equal(compoundMove({ ...genes, askFirst: 1, questionBudget: 20 }, [{ steps: assumed }]), undefined, 'named genes at their bounds');
    const evolver = createBuiltinAgentEvolver();
    const failures = [{ env, steps: unchecked, reward: 0 }, { env, steps: assumed, reward: 0 }];
    const first = await evolver.propose({ current: config(genes), failures, generation: 1, rng: createRng(1), tried: [] });
    assert.ok(first.ok && first.operator === `mutate:${compoundMove(genes, failures)!.change}`);
    const second = await evolver.propose({ current: config(genes), failures, generation: 1, rng: createRng(1), tried: [first.operator] });
    assert.ok(second.ok && !second.operator.includes(' + '), `a single step once the compound was raced: ${second.ok ? second.operator : ''}`);
  });

  it('targets the idiom that fits most failing families a fumble explains, then single steps that are no part of a raced compound', async () => {
    const genes = agentGenesSchema.parse({ askFirst: 0.9, questionBudget: 2, explore: 0.9, verify: 0.6, idiom: 'grep', persistence: 1 });
    const spec = withFeedback(2);
    const outOfRetries = await trace({ ...genes, askFirst: 1, questionBudget: 6, verify: 1, persistence: 1 }, 3, { spec, checkFails: true });
    assert.deepEqual(diagnoseFailure(outOfRetries, spec.family), ['outOfRetries']);
    const assumed = await trace({ ...genes, askFirst: 0, verify: 1 }, 3);
    const failed = (family: string, steps: AtifStep[]) => ({ env: { family }, steps });
    // log-triage fits awk, config-repair sed (the agent's own playbooks): the idiom of the most fumbled failures.
    assert.equal(targetedIdiom(genes, [failed('log-triage', outOfRetries)])?.change, 'idiom grep->awk');
    assert.equal(targetedIdiom(genes, [failed('log-triage', outOfRetries), failed('config-repair', outOfRetries), failed('config-repair', outOfRetries)])?.change, 'idiom grep->sed');
    assert.deepEqual(targetedIdiom(genes, [failed('log-triage', outOfRetries)])?.genes, { ...genes, idiom: 'awk' });
    assert.equal(targetedIdiom({ ...genes, idiom: 'awk' }, [failed('log-triage', outOfRetries)]), undefined, 'already the idiom that fits');
    assert.equal(targetedIdiom(genes, [failed('log-triage', assumed)]), undefined, 'an assumed fact is no fumble: no idiom helps');
    assert.equal(targetedIdiom(genes, [{ steps: outOfRetries }]), undefined, 'no family, no playbook to read');
    // The role: compound, then the targeted idiom, then a single step that is no part of the raced compound.
    const evolver = createBuiltinAgentEvolver();
    const failures = [{ env, steps: outOfRetries, reward: 0 }, { env, steps: assumed, reward: 0 }];
    const compound = compoundMove(genes, failures)!;
    assert.equal(compound.change, 'askFirst 0.9->1 + questionBudget 2->3 + persistence 1->2');
    const second = await evolver.propose({ current: config(genes), failures, generation: 1, rng: createRng(1), tried: [`mutate:${compound.change}`] });
    assert.ok(second.ok && second.operator === 'mutate:idiom grep->awk', second.ok ? second.operator : '');
    for (let seed = 0; seed < 20; seed++) {
      const third = await evolver.propose({ current: config(genes), failures, generation: 1, rng: createRng(seed), tried: [`mutate:${compound.change}`, second.operator] });
      assert.ok(third.ok && !compound.change.split(' + ').includes(third.operator.replace(/^mutate:/, '')) && third.operator !== second.operator, third.ok ? third.operator : '');
    }
  });

  it('draws the steps that address the diagnosed failures more often, and not a step already raced from this agent', async () => {
    const genes = agentGenesSchema.parse({ askFirst: 0.9, questionBudget: 2, explore: 0.9, verify: 0.6, idiom: 'grep', persistence: 1 });
    const unchecked = await trace({ ...genes, askFirst: 1, questionBudget: 6, verify: 0 }, 3, { spec: noCheck });
    const weights = moveWeights(genes, [{ steps: unchecked }, { steps: unchecked }]);
    const w = (change: string) => weights.find((x) => x.move.change === change)!.weight;
    assert.equal(w('verify 0.6->0.8'), 1 + 2 * diagnosisWeight);
    assert.equal(w('verify 0.6->0.4'), 1);
    assert.equal(w('persistence 1->2'), 1);
    // Without failures every step is as likely as any other; a step already tried gets no weight while others are left.
    assert.ok(moveWeights(genes, []).every((x) => x.weight === 1));
    assert.equal(moveWeights(genes, [{ steps: unchecked }], ['verify 0.6->0.8']).find((x) => x.move.change === 'verify 0.6->0.8')!.weight, 0);
    // Drawn over many streams, the diagnosed step comes up in proportion to its weight (25 of 37 here).
    const draws = Array.from({ length: 400 }, (_, i) => diagnosedMutation(genes, [{ steps: unchecked }, { steps: unchecked }], createRng(i)).change);
    const share = draws.filter((c) => c === 'verify 0.6->0.8').length / draws.length;
    const expected = (1 + 2 * diagnosisWeight) / (weights.reduce((t, x) => t + x.weight, 0));
    assert.ok(Math.abs(share - expected) < 0.08, `verify up drawn ${share}, expected ${expected}`);
    // The role passes the operators it was told were tried.
    const p = await createBuiltinAgentEvolver().propose({ current: config(genes), failures: [{ env, steps: unchecked, reward: 0 }], generation: 1, rng: createRng(1), tried: ['mutate:verify 0.6->0.8'] });
    assert.ok(p.ok && p.operator !== 'mutate:verify 0.6->0.8');
  });
});
