import assert from 'node:assert/strict';
import { readStopToken, statesFact } from '../../../src/core/roles/llm/llmUser.js';
import { behaviourInstructions, userSystemPrompt } from '../../../src/core/roles/llm/userPrompt.js';
import { roleFromSystemPrompt } from '../../../src/core/roles/llm/roleMarker.js';
import { environmentSpecSchema } from '../../../src/core/spec/environment.js';
import { userProfileSchema } from '../../../src/core/spec/user.js';

export const sampleEnv = environmentSpecSchema.parse({
  apiVersion: 'coevolve/v1',
  kind: 'Environment',
  id: 'log-triage-1',
  title: 'Count errors',
  family: 'log-triage',
  instruction: 'Count the error lines in app.log for the service the user cares about and write the number to count.txt.',
  verifier: { script: 'test "$(cat count.txt)" = 3' },
  oracle: { script: 'grep -c "ERROR payments" app.log > count.txt' },
  user: {
    request: 'Can you count the errors in the log for me?',
    facts: [{ id: 'service', text: 'Only the payments service matters, and the threshold is 3 errors.', keywords: ['service'] }],
    goal: 'count.txt holds the number of payments errors',
    requiredFacts: ['service'],
  },
  knobs: { horizon: 10, hiddenState: 20 },
});

export const sampleProfile = userProfileSchema.parse({
  apiVersion: 'coevolve/v1',
  kind: 'User',
  id: 'dana',
  persona: { name: 'Dana', background: 'Runs the on-call rota.', expertise: 'novice' },
  behavior: { patience: 3, disclosure: 'incremental', nonCollaborative: ['tangent'] },
});

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
