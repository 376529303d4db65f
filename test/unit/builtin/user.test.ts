import assert from 'node:assert/strict';
import { createRng } from '../../../src/core/ports/rng.js';
import { userProfileSchema } from '../../../src/core/spec/user.js';
import type { UserProfile } from '../../../src/core/spec/user.js';
import { realismProblems } from '../../../src/core/evolution/realism.js';
import { findFamily } from '../../../src/builtin/families/registry.js';
import { createRuleBasedUser } from '../../../src/builtin/user/ruleBasedUser.js';
import { cooperativeNovice, seedUsers } from '../../../src/builtin/user/seedUsers.js';
import { evolveUser } from '../../../src/builtin/user/userEvolver.js';

const env = findFamily('csv-report')!.generate({ level: 5 }, createRng(3));
const withBehavior = (b: Partial<UserProfile['behavior']>): UserProfile => userProfileSchema.parse({ ...cooperativeNovice(), behavior: { ...cooperativeNovice().behavior, ...b } });
const user = createRuleBasedUser();

describe('rule-based user', () => {
  it('says it is not an LLM', () => assert.match(user.label, /not an LLM/));

  it('upfront: states every fact in the opening message', async () => {
    const ep = user.begin({ env, profile: withBehavior({ disclosure: 'upfront' }), rng: createRng(1) });
    const open = await ep.open();
    assert.deepEqual(open.disclosedFacts.sort(), env.user.facts.map((f) => f.id).sort());
    for (const f of env.user.facts) assert.ok(open.message.includes(f.text));
  });

  it('on_request: answers only what the question is about, and every matching fact', async () => {
    const ep = user.begin({ env, profile: withBehavior({ disclosure: 'on_request', cooperativeness: 1, ambiguity: 0.5 }), rng: createRng(1) });
    assert.deepEqual((await ep.open()).disclosedFacts, []);
    const r = await ep.reply('Which column should I sum up?');
    assert.deepEqual(r.disclosedFacts, ['column']);
    const both = await ep.reply('Where should I save it, and how should I group it?');
    assert.deepEqual(both.disclosedFacts.sort(), ['group', 'output']);
  });

  it('incremental: one fact per answer', async () => {
    const ep = user.begin({ env, profile: withBehavior({ disclosure: 'incremental', cooperativeness: 1, ambiguity: 0.5 }), rng: createRng(1) });
    await ep.open();
    const r = await ep.reply('Where should I save it, and how should I group it?');
    assert.equal(r.disclosedFacts.length, 1);
  });

  it('uncooperative users answer partly: the value is withheld', async () => {
    const ep = user.begin({ env, profile: withBehavior({ cooperativeness: 0, ambiguity: 0.5 }), rng: createRng(1) });
    await ep.open();
    const r = await ep.reply('Which column should I sum up?');
    assert.deepEqual(r.disclosedFacts, []);
    assert.ok(!r.message.includes('`'));
  });

  it('runs out of patience after N agent messages, and reacts to repeated questions in its tone', async () => {
    const ep = user.begin({ env, profile: withBehavior({ patience: 3, cooperativeness: 1, errorReaction: 'accusatory', ambiguity: 0.5 }), rng: createRng(1) });
    await ep.open();
    await ep.reply('Which column should I sum up?');
    const again = await ep.reply('Which column should I sum up?');
    assert.match(again.message, /Are you even listening/);
    await ep.reply('Anything else?');
    const last = await ep.reply('Which column?');
    assert.equal(last.stop, 'out_of_patience');
  });

  it('stops as out of scope after three unrelated messages', async () => {
    const ep = user.begin({ env, profile: withBehavior({}), rng: createRng(1) });
    await ep.open();
    await ep.reply('hello');
    await ep.reply('nice weather');
    assert.equal((await ep.reply('what is your favourite colour')).stop, 'out_of_scope');
  });

  it('rates by rules: goal met needs a passing verifier and no contradicted fact', async () => {
    const ep = user.begin({ env, profile: withBehavior({}), rng: createRng(1) });
    await ep.open();
    const submit = (summary: string) => [{ step_id: 1, timestamp: '', source: 'agent' as const, message: '', tool_calls: [{ tool_call_id: 'c1', function_name: 'submit', arguments: { summary } }] }];
    const pass = { exitCode: 0, stdout: '', stderr: '', timedOut: false, durationMs: 1, reward: 1, detail: {} };
    const good = await ep.rate({ steps: submit('Done.'), submitted: true, verifier: pass });
    assert.equal(good.rating.goalMet, true);
    assert.ok(good.rating.satisfaction >= 4);
    const contradicted = await ep.rate({ steps: submit('I wrote `out/report.csv`.'), submitted: true, verifier: pass });
    assert.equal(contradicted.rating.goalMet, false);
    const failed = await ep.rate({ steps: submit('Done.'), submitted: true, verifier: { ...pass, reward: 0.5, exitCode: 1 } });
    assert.equal(failed.rating.goalMet, false);
    assert.ok(failed.rating.satisfaction < good.rating.satisfaction);
  });

  it('is deterministic given its rng', async () => {
    const talk = async () => {
      const ep = user.begin({ env, profile: withBehavior({ cooperativeness: 0.5, nonCollaborative: ['tangent'] }), rng: createRng(9) });
      return [await ep.open(), await ep.reply('Which column should I sum?'), await ep.reply('hm'), await ep.reply('Where to save?')].map((t) => t.message);
    };
    assert.deepEqual(await talk(), await talk());
  });
});

describe('seed users and the user evolver', () => {
  it('seed users are valid and realistic', () => {
    for (const u of seedUsers()) assert.deepEqual(realismProblems(u), [], u.id);
  });

  it('moves knobs in the asked direction, inside human-like bounds, with new ids and lineage', () => {
    let u = cooperativeNovice();
    for (let g = 1; g <= 30; g++) {
      const p = evolveUser(u, 'harder', g, createRng(g));
      if (!p.ok) { assert.match(p.reason, /human-like bounds/); break; }
      assert.deepEqual(realismProblems(p.child), []);
      assert.notEqual(p.child.id, u.id);
      assert.deepEqual(p.child.lineage, { parent: u.id, operator: p.operator, generation: g });
      assert.match(p.operator, /^harder:/);
      u = p.child;
    }
    assert.ok(u.behavior.cooperativeness <= cooperativeNovice().behavior.cooperativeness);
    const easier = evolveUser(u, 'easier', 31, createRng(1));
    assert.ok(easier.ok && easier.operator.startsWith('easier:'));
  });
});
