import assert from 'node:assert/strict';
import { readStopToken, statesFact } from '../../../src/core/roles/llm/llmUser.js';
import { behaviourInstructions, userSystemPrompt } from '../../../src/core/roles/llm/userPrompt.js';
import { roleFromSystemPrompt } from '../../../src/core/roles/llm/roleMarker.js';
import { sampleEnv, sampleProfile } from './samples.js';

describe('simulated user instructions', () => {
  it('turns every knob value into a different instruction', () => {
    const distinct = (values: string[]) => new Set(values).size === values.length;
    assert.ok(distinct([0.1, 0.5, 0.9].map(behaviourInstructions.cooperativeness)));
    assert.ok(distinct([0.1, 0.5, 0.9].map(behaviourInstructions.ambiguity)));
    assert.ok(distinct([0.1, 0.5, 0.9].map(behaviourInstructions.verbosity)));
    assert.ok(distinct((['upfront', 'on_request', 'incremental'] as const).map(behaviourInstructions.disclosure)));
    assert.ok(distinct((['calm', 'frustrated', 'accusatory'] as const).map(behaviourInstructions.errorReaction)));
    assert.ok(distinct((['unavailable_request', 'tangent', 'impatience', 'fragments'] as const).map(behaviourInstructions.nonCollaborative)));
  });

  it('builds a system prompt with the marker, persona, hidden facts, goal, knobs and stop tokens', () => {
    const prompt = userSystemPrompt(sampleEnv, sampleProfile);
    assert.equal(roleFromSystemPrompt(prompt), 'user');
    for (const piece of ['Dana', 'Runs the on-call rota.', 'Only the payments service matters', 'count.txt holds the number', 'at most one fact per message', 'tangent', '###STOP###', '###GIVE_UP###', '###OUT-OF-SCOPE###', 'about 3 messages', 'not technical']) {
      assert.ok(prompt.includes(piece), `missing "${piece}"`);
    }
    assert.ok(!prompt.includes('undefined'));
  });

  it('reads stop tokens and strips them', () => {
    assert.deepEqual(readStopToken('Great, thanks! ###STOP###'), { message: 'Great, thanks!', stop: 'done' });
    assert.deepEqual(readStopToken('###GIVE_UP###'), { message: 'I will stop here.', stop: 'gave_up' });
    assert.deepEqual(readStopToken('I cannot share that. ###OUT-OF-SCOPE###'), { message: 'I cannot share that.', stop: 'out_of_scope' });
    assert.deepEqual(readStopToken('  just talking  '), { message: 'just talking' });
  });

  it('notices when a message states a hidden fact', () => {
    const fact = sampleEnv.user.facts[0]!;
    assert.ok(statesFact('It is only the payments service that matters; threshold 3 errors.', fact));
    assert.ok(!statesFact('Only the payments service matters.', fact), 'the number is missing');
    assert.ok(!statesFact('Hello there, 3 things.', fact));
  });
});
