import assert from 'node:assert/strict';
import { createRng } from '../../../src/core/ports/rng.js';
import { userProfileSchema } from '../../../src/core/spec/user.js';
import type { UserProfile } from '../../../src/core/spec/user.js';
import { realismProblems } from '../../../src/core/evolution/realism.js';
import { findFamily } from '../../../src/builtin/families/registry.js';
import { createRuleBasedUser } from '../../../src/builtin/user/ruleBasedUser.js';
import { cooperativeNovice, seedUsers } from '../../../src/builtin/user/seedUsers.js';
import { applyUserMove, createBuiltinUserEvolver, evolveUser, userMoves } from '../../../src/builtin/user/userEvolver.js';
import { fullAnswerChance } from '../../../src/builtin/user/ruleBasedUser.js';

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

  it('answers in full less often as ambiguity rises, cooperativeness falls or expertise drops; always at cooperativeness 1', () => {
    const chance = (b: Partial<UserProfile['behavior']>, expertise: UserProfile['persona']['expertise'] = 'novice') =>
      fullAnswerChance(userProfileSchema.parse({ ...withBehavior(b), persona: { ...cooperativeNovice().persona, expertise } }));
    const byAmbiguity = [0, 0.2, 0.4, 0.6, 0.8].map((a) => chance({ ambiguity: a }));
    const byCooperation = [1, 0.9, 0.7, 0.5].map((c) => chance({ cooperativeness: c }));
    const byExpertise = (['expert', 'intermediate', 'novice'] as const).map((e) => chance({}, e));
    for (const xs of [byAmbiguity, byCooperation, byExpertise]) for (let i = 1; i < xs.length; i++) assert.ok(xs[i]! < xs[i - 1]!, xs.join(' '));
    assert.equal(chance({ cooperativeness: 1, ambiguity: 0.9 }), 1);
  });

  it('a precise user volunteers needed facts in its opening now and then; from ambiguity 0.3 up, never', async () => {
    const volunteered = async (ambiguity: number) => {
      let n = 0;
      for (let seed = 0; seed < 200; seed++) n += (await user.begin({ env, profile: withBehavior({ ambiguity }), rng: createRng(seed) }).open()).disclosedFacts.length;
      return n;
    };
    const [a0, a1, a3] = [await volunteered(0), await volunteered(0.1), await volunteered(0.3)];
    assert.ok(a0 > a1 && a1 > 0, `${a0} > ${a1} > 0`);
    assert.equal(a3, 0);
  });

  it('patience counts agent turns: past half of it the user may stop waiting, and at 1.5 x it has', async () => {
    const pass = { exitCode: 0, stdout: '', stderr: '', timedOut: false, durationMs: 1, reward: 1, detail: {} };
    const turns = (n: number) => Array.from({ length: n }, (_, i) => ({ step_id: i + 1, timestamp: '', source: 'agent' as const, message: '', tool_calls: [{ tool_call_id: `c${i}`, function_name: i === n - 1 ? 'submit' : 'run_command', arguments: i === n - 1 ? { summary: 'Done.' } : { command: 'ls' } }] }));
    const metShare = async (n: number) => {
      let met = 0;
      for (let seed = 0; seed < 100; seed++) {
        const ep = user.begin({ env, profile: withBehavior({ patience: 10 }), rng: createRng(seed) });
        await ep.open();
        const r = await ep.rate({ steps: turns(n), submitted: true, verifier: pass });
        if (r.rating.goalMet) met++;
        else { assert.equal(r.rating.stopReason, 'out_of_patience'); assert.match(r.rating.reason, new RegExp(`took ${n} turns`)); }
      }
      return met;
    };
    const [m5, m8, m12, m15] = [await metShare(5), await metShare(8), await metShare(12), await metShare(15)];
    assert.equal(m5, 100);
    assert.ok(m8 < m5 && m12 < m8 && m12 > 0, `${m5} > ${m8} > ${m12} > 0`);
    assert.equal(m15, 0);
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

  it('lists single-step moves inside the bounds and applies one: the child differs from its parent in that knob only', () => {
    const parent = cooperativeNovice();
    const moves = userMoves(parent);
    const ids = moves.map((m) => m.id);
    for (const id of ['harder:less_disclosure', 'easier:more_disclosure', 'harder:more_ambiguity', 'easier:less_ambiguity', 'harder:less_patience', 'harder:less_cooperative', 'easier:more_cooperative', 'easier:more_expertise', 'harder:enable_tangent']) {
      assert.ok(ids.includes(id), `${id} in ${ids.join(', ')}`);
    }
    // A novice is the least expert, and this one is as patient as a human-like user gets: no move past a bound.
    assert.ok(!ids.includes('harder:less_expertise'));
    assert.ok(!ids.includes('easier:more_patience'));
    for (const m of moves) {
      const p = applyUserMove(parent, m.id, 3);
      assert.ok(p.ok, m.id);
      if (!p.ok) continue;
      assert.deepEqual(realismProblems(p.child), [], m.id);
      assert.deepEqual(p.child.lineage, { parent: parent.id, operator: m.id, generation: 3 });
      const changed = [...Object.keys(parent.behavior).filter((k) => JSON.stringify(parent.behavior[k as keyof UserProfile['behavior']]) !== JSON.stringify(p.child.behavior[k as keyof UserProfile['behavior']])),
        ...(parent.persona.expertise !== p.child.persona.expertise ? ['expertise'] : [])];
      assert.deepEqual(changed, [m.knob], m.id);
      assert.equal(m.direction, m.id.split(':')[0]);
    }
    const refused = applyUserMove({ ...parent, behavior: { ...parent.behavior, disclosure: 'incremental' } }, 'harder:less_disclosure', 1);
    assert.equal(refused.ok, false);
    assert.equal(applyUserMove(parent, 'harder:shout', 1).ok, false);
  });

  it('the role lists moves and applies a chosen one', async () => {
    const evolver = createBuiltinUserEvolver();
    const parent = cooperativeNovice();
    const move = evolver.moves!(parent).find((m) => m.id === 'harder:more_ambiguity')!;
    const p = await evolver.apply!({ parent, move, generation: 2, rng: createRng(1) });
    assert.ok(p.ok && p.child.behavior.ambiguity > parent.behavior.ambiguity);
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
