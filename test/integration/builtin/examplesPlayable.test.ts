import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadEnvironment } from '../../../src/core/spec/load.js';
import { playOneRollout } from '../../../src/extension/authoring/playAndEvolve.js';
import { createSandboxBackend } from '../../../src/sandbox/factory.js';
import { demoRunProblem } from '../../support/demoRun.js';
import { needService } from '../../support/services.js';

// Item 6 of issue 17: the example environments shipped in environments/ are played by the built-in cast (as the
// editor's Play and `coevolve run` build it), never refused for lack of a procedure, and the agent says why it stopped.
describe('the shipped example environments are playable offline by the built-in agent', function () {
  this.timeout(600_000);
  const examples = readdirSync(resolve('environments')).filter((f) => f.endsWith('.env.yaml')).map((f) => resolve('environments', f));
  let runs: string;

  before(async function () {
    await needService(this, 'bubblewrap', async () => demoRunProblem());
    runs = mkdtempSync(join(tmpdir(), 'coevolve-examples-'));
  });
  after(() => runs && rmSync(runs, { recursive: true, force: true }));

  it('has examples to play', () => assert.ok(examples.length >= 3, examples.join(', ')));

  it('plays every example with a procedure (not "no procedure"), and the submit carries the agent\'s reason', async () => {
    const backend = createSandboxBackend('bwrap', {});
    const outcomes: string[] = [];
    try {
      for (const file of examples) {
        const spec = loadEnvironment(readFileSync(file, 'utf8'), file);
        const played = await playOneRollout(spec, file, backend, runs);
        const r = played.record;
        const submit = r.steps.flatMap((s) => s.tool_calls ?? []).find((c) => c.function_name === 'submit');
        assert.ok(submit, `${spec.id}: the agent submitted`);
        const reason = String(submit.arguments['summary'] ?? '');
        assert.doesNotMatch(reason, /no procedure/, `${spec.id}: ${reason}`);
        assert.ok(reason.length > 0, `${spec.id}: the submit says what was done`);
        assert.ok(r.steps.some((s) => (s.tool_calls ?? []).some((c) => c.function_name === 'run_command')), `${spec.id}: the agent worked in the sandbox`);
        outcomes.push(`${spec.id}: ${r.success ? 'solved' : 'not solved'} (reward ${r.rewards.total.toFixed(2)}, agent ${r.roles.agent})`);
      }
    } finally {
      await backend.dispose();
    }
    console.log(`      ${outcomes.join('\n      ')}`);
    assert.ok(outcomes.some((o) => o.includes(': solved')), 'at least one example is solved by the offline agent');
  });
});
