import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadEnvironment, loadRunConfig, loadUser, SpecError } from '../../../src/core/spec/load.js';

const environments = join(__dirname, '../../../environments');

describe('typed spec loaders', () => {
  it('return typed specs with defaults applied', () => {
    const env = loadEnvironment(readFileSync(join(environments, 'config-repair.env.yaml'), 'utf8'), 'config-repair.env.yaml');
    assert.equal(env.sandbox.workdir, '/workspace');
    // The YAML anchor in the example gives the verifier the same checker text as the workspace.
    assert.equal(env.verifier.files[0]!.content, env.sandbox.files[1]!.content);
    const user = loadUser(readFileSync(join(environments, 'terse-ops.user.yaml'), 'utf8'), 'terse-ops.user.yaml');
    assert.equal(user.behavior.patience, 6);
    const run = loadRunConfig(readFileSync(join(environments, 'example.run.yaml'), 'utf8'), 'example.run.yaml');
    assert.equal(run.roles.agent.kind, 'builtin');
  });

  it('throw a SpecError that carries every problem and names the first with its position', () => {
    const text = 'apiVersion: coevolve/v1\nkind: User\nid: x\npersona:\n  name: 3\nbehavior:\n  patience: -1\n';
    assert.throws(() => loadUser(text, 'x.user.yaml'), (err: unknown) => {
      assert.ok(err instanceof SpecError);
      assert.equal(err.problems.length, 2);
      assert.equal(err.message, 'x.user.yaml:5:9: persona.name: expected text, got 3; put it in quotes ("3") if you mean the text (and 1 more problem; run `coevolve validate x.user.yaml`)');
      return true;
    });
  });

  it('check the kind the caller asks for, whatever the file is called', () => {
    assert.throws(() => loadEnvironment('apiVersion: coevolve/v1\nkind: User\nid: x\npersona: { name: A }\n', 'spec.yaml'), (err: unknown) => {
      assert.ok(err instanceof SpecError);
      const kind = err.problems.find((p) => p.path.join('.') === 'kind');
      assert.equal(kind?.message, 'an Environment spec is expected here but says kind: User; set kind: Environment');
      assert.deepEqual([kind.line, kind.column, kind.endColumn], [2, 7, 11]);
      return true;
    });
  });
});
