// Generic operators on imported tasks, offline: facts of the instruction, user-centric moves (hold back, vaguer
// request, mistaken statement, disclose), environment moves, the satisfiability play, and the oracle agent, which
// must ask for what was held back (so its success depends on its genes and the user, strictly between 0 and 1).
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { createRng } from '../../../src/core/ports/rng.js';
import { oracleView } from '../../../src/core/roles/oracleView.js';
import type { AgentToolCall, ToolResult } from '../../../src/core/roles/ports.js';
import { agentConfigSchema } from '../../../src/core/spec/agent.js';
import type { EnvironmentSpec } from '../../../src/core/spec/environment.js';
import { userProfileSchema } from '../../../src/core/spec/user.js';
import { createRuleBasedUser } from '../../../src/builtin/user/ruleBasedUser.js';
import { importHarborTasks } from '../../../src/datasets/harborImport.js';
import { applyEnvironmentMove } from '../../../src/generic/environmentOperators.js';
import { createGenericDesigner, genericMoves, satisfiabilityPlay } from '../../../src/generic/genericDesigner.js';
import { instructionFacts } from '../../../src/generic/instructionFacts.js';
import { createOracleAgent } from '../../../src/generic/oracleAgent.js';
import { applyUserCentric, heldBackFacts, mistaken } from '../../../src/generic/userCentricOperators.js';

const imported = importHarborTasks([resolve('test/fixtures/real-tasks/harbor')]).imported;
const spec = (id: string): EnvironmentSpec => imported.find((i) => i.id === id)!.spec;
const user = createRuleBasedUser();
const profile = (over: Record<string, unknown> = {}) => userProfileSchema.parse({ apiVersion: 'coevolve/v1', kind: 'User', id: 'u', persona: { name: 'Sam' }, behavior: { cooperativeness: 1, ...over } });
const agentConfig = (genes: Record<string, unknown>) => agentConfigSchema.parse({ apiVersion: 'coevolve/v1', kind: 'Agent', id: 'a', genes });

function child(env: EnvironmentSpec, move: string): EnvironmentSpec {
  const c = applyUserCentric(env, move);
  if (typeof c === 'string') throw new Error(c);
  return c;
}

/** Plays the oracle agent against the rule-based user without a sandbox; returns the command it ran. */
async function dialogue(env: EnvironmentSpec, genes: Record<string, unknown>, seed: string, userOver: Record<string, unknown> = {}): Promise<{ command?: string; asked: number; disclosed: string[] }> {
  const ep = user.begin({ env, profile: profile(userOver), rng: createRng(`${seed}:user`) });
  const opening = await ep.open();
  const agent = createOracleAgent().begin({ task: { instruction: env.instruction, family: env.family, workdir: '/app', tools: [], oracle: oracleView(env) }, config: agentConfig(genes), rng: createRng(`${seed}:agent`) });
  const disclosed = [...opening.disclosedFacts];
  let results: ToolResult[] = [];
  let asked = 0;
  let userMessage: string | undefined = opening.message;
  for (let turn = 0; turn < 20; turn++) {
    const t = await agent.next({ results, ...(userMessage !== undefined ? { userMessage } : {}) });
    userMessage = undefined;
    const call = t.calls[0] as AgentToolCall;
    if ('invalid' in call) throw new Error(call.invalid);
    if (call.name === 'submit') return { asked, disclosed };
    if (call.name === 'run_command') return { command: call.command, asked, disclosed };
    {
      asked++;
      const r = await ep.reply(call.text);
      disclosed.push(...r.disclosedFacts);
      results = [{ callId: call.id, content: r.message }];
    }
  }
  throw new Error('no command in 20 turns');
}

describe('generic operators', () => {
  it('finds the facts the solution depends on, and moves one to the user', async () => {
    const env = spec('log-level-count');
    const facts = instructionFacts(env);
    assert.deepEqual(facts.map((f) => f.values), [['/app/service.log'], ['ERROR'], ['/app/errors.txt']]);
    const c = child(env, 'user:hold-back:f3');
    assert.ok(!c.instruction.includes('/app/errors.txt'), 'the instruction no longer states it');
    assert.ok(!c.user.request.includes('/app/errors.txt'), 'nor does the opening request');
    assert.deepEqual(heldBackFacts(c).map((f) => f.text), ['Write only the number to `/app/errors.txt`.']);
    assert.deepEqual(c.user.requiredFacts, ['held-f3']);
    assert.equal(c.oracle.script, env.oracle.script, 'the oracle is untouched');
    assert.deepEqual(c.verifier, env.verifier, 'so is the verifier');
    const view = oracleView(c);
    assert.ok(!view.script.includes('/app/errors.txt'), 'the agent sees the oracle without the held-back value');
    assert.equal(view.unknowns.length, 1);
    assert.equal(await satisfiabilityPlay(c, user), undefined);
  });

  it('refuses a held-back fact no question can reach (the satisfiability play)', async () => {
    const c = child(spec('log-level-count'), 'user:hold-back:f3');
    c.user.facts = c.user.facts.map((f) => ({ ...f, keywords: [] }));
    assert.match((await satisfiabilityPlay(c, user))!, /was not told held-f3/);
  });

  it('makes the request vaguer, adds a correctable mistake, and can disclose again', () => {
    const env = { ...spec('csv-region-total'), user: { ...spec('csv-region-total').user, request: 'Please add up the north sales in /app/sales.csv and put the total in /app/total.txt. Thanks!' } };
    const vague = child(env, 'user:vaguer-request');
    assert.equal(vague.user.request, 'Please add up the north sales in the file and put the total in the file.');
    const held = child(env, 'user:hold-back:f3');
    const wrong = child(held, 'user:mistaken-statement:held-f3');
    assert.match(wrong.user.request, /`\/app\/totals\.txt`/);
    assert.equal(mistaken('/app/errors.txt'), '/app/error.txt');
    assert.equal(mistaken('8443'), '8444');
    const back = child(held, 'user:disclose:held-f3');
    assert.match(back.instruction, /\/app\/total\.txt/);
    assert.deepEqual(heldBackFacts(back), []);
  });

  it('adds distractors, drops test talk, tightens budgets, and lists harder and easier moves', () => {
    const env = spec('log-level-count');
    const d = applyEnvironmentMove(env, 'env:distractors') as EnvironmentSpec;
    assert.equal(d.sandbox.files.filter((f) => f.path.startsWith('old-notes/')).length, 2);
    assert.equal(d.knobs.distractors, 2);
    const t = applyEnvironmentMove(env, 'env:tighter-budget') as EnvironmentSpec;
    assert.ok(t.sandbox.limits.commandTimeoutSec < env.sandbox.limits.commandTimeoutSec);
    const ids = genericMoves(env).map((m) => m.id);
    assert.ok(ids.includes('user:hold-back:f1') && ids.includes('env:distractors') && ids.includes('env:tighter-budget'));
    assert.ok(genericMoves(child(env, 'user:hold-back:f1')).some((m) => m.id === 'user:disclose:held-f1' && m.direction === 'easier'));
    const withTests = { ...env, instruction: `${env.instruction}\nThe tests in /tests check the file.\n` };
    assert.ok(!(applyEnvironmentMove(withTests, 'env:less-feedback') as EnvironmentSpec).instruction.includes('/tests'));
  });

  it('the designer applies a move with a new id and lineage, and proposes by direction', async () => {
    const designer = createGenericDesigner({ satisfiabilityUser: user });
    const env = spec('config-port');
    const move = designer.moves!(env).find((m) => m.id === 'user:hold-back:f2')!;
    const p = await designer.apply!({ parent: env, move, generation: 1, rng: createRng('x') });
    assert.ok(p.ok);
    if (!p.ok) return;
    assert.match(p.child.id, /^config-port-g1-[0-9a-f]{6}$/);
    assert.deepEqual(p.child.lineage, { parent: 'config-port', operator: 'user:hold-back:f2', generation: 1 });
    const easier = await designer.propose({ parent: p.child, direction: 'easier', stats: { successRate: 0, regret: 0, plays: 4, meanReward: 0 }, generation: 2, rng: createRng('y') });
    assert.ok(easier.ok);
  });
});

describe('the oracle agent', () => {
  const held = child(spec('log-level-count'), 'user:hold-back:f3');

  it('asks for the held-back value and runs the oracle with it', async () => {
    const r = await dialogue(held, { askFirst: 1, questionBudget: 3 }, 's1');
    assert.equal(r.asked, 1);
    assert.deepEqual(r.disclosed, ['held-f3']);
    assert.ok(r.command?.includes('/app/errors.txt'), r.command);
    assert.ok(!r.command?.includes('{{ask:'));
  });

  it('never asking, it guesses and the value is wrong', async () => {
    const r = await dialogue(held, { askFirst: 0 }, 's2');
    assert.equal(r.asked, 0);
    assert.ok(!r.command?.includes('/app/errors.txt'));
  });

  it('takes a mistaken statement at its word unless it double-checks', async () => {
    const wrong = child(held, 'user:mistaken-statement:held-f3');
    const trusting = await dialogue(wrong, { askFirst: 1, verify: 0 }, 's3');
    assert.equal(trusting.asked, 0);
    assert.ok(trusting.command?.includes('/app/error.txt') && !trusting.command.includes('/app/errors.txt'));
    const careful = await dialogue(wrong, { askFirst: 1, verify: 1 }, 's4');
    assert.equal(careful.asked, 1);
    assert.ok(careful.command?.includes('/app/errors.txt'), careful.command);
  });

  it('succeeds on some seeds and not others when its genes and the user are in between', async () => {
    let right = 0;
    const n = 40;
    for (let i = 0; i < n; i++) {
      const r = await dialogue(held, { askFirst: 0.6, questionBudget: 2, persistence: 0 }, `mix-${i}`, { cooperativeness: 0.7 });
      if (r.command?.includes('/app/errors.txt')) right++;
    }
    assert.ok(right > 0 && right < n, `${right} of ${n} runs got the value`);
  });
});
