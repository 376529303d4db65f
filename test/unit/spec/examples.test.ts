import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EnvironmentSpec } from '../../../src/core/spec/environment.js';
import { validateWorkspace } from '../../../src/specs/workspace.js';

const environments = join(__dirname, '../../../environments');

describe('example specs in environments/', () => {
  it('validate with no problems at all, warnings included', async () => {
    const result = await validateWorkspace(environments);
    assert.deepEqual(result.problems.map((p) => `${p.file}:${p.line}:${p.column}: ${p.message}`), []);
    const kinds = result.specs.map((s) => s.kind);
    assert.ok(kinds.filter((k) => k === 'Environment').length >= 3, 'at least 3 environments');
    assert.ok(kinds.filter((k) => k === 'User').length >= 2, 'at least 2 users');
    assert.ok(result.files.some((f) => f.endsWith('example.run.yaml')));
  });

  it('environments are of different families, each with hidden facts the goal needs, a hint and an oracle', async () => {
    const { specs } = await validateWorkspace(environments);
    const envs = specs.filter((s) => s.kind === 'Environment').map((s) => s.spec as EnvironmentSpec);
    assert.equal(new Set(envs.map((e) => e.family)).size, envs.length);
    for (const e of envs) {
      assert.ok(e.user.requiredFacts.length > 0, `${e.id} needs facts only the user knows`);
      assert.ok(e.hint && e.oracle.script && e.verifier.script, `${e.id} has hint, oracle and verifier`);
      // Hidden facts are the user's to tell: the agent's instruction must not give them away.
      for (const id of e.user.requiredFacts) {
        const fact = e.user.facts.find((f) => f.id === id)!;
        assert.ok(!e.instruction.includes(fact.text), `${e.id}: instruction leaks fact ${id}`);
      }
    }
  });

  it('each YAML file points editors at its generated schema', () => {
    for (const [file, schema] of [['log-triage.env.yaml', 'environment'], ['terse-ops.user.yaml', 'user'], ['example.run.yaml', 'run']]) {
      const first = readFileSync(join(environments, file!), 'utf8').split('\n')[0];
      assert.equal(first, `# yaml-language-server: $schema=schemas/${schema}.schema.json`);
    }
  });
});
