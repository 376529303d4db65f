// Small valid specs shared by the LLM role tests (unit and integration).
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
