import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SandboxBackend } from '../../../src/core/ports/sandbox.js';
import { BwrapBackend } from '../../../src/sandbox/bwrap/bwrapBackend.js';
import { DockerBackend } from '../../../src/sandbox/docker/dockerBackend.js';
import { ProcessBackend } from '../../../src/sandbox/process/processBackend.js';
import { runCli } from '../../support/cli.js';
import { needService } from '../../support/services.js';
import { bwrapProblem, dockerProblem, requestFor, testLabels } from './support.js';

// Issue 11: an argv is run exactly as given, so a caller never pastes a value into a shell line. Each word below
// would change meaning if it were joined and given to a shell.
const hostile = ["a b", "it's", '$(echo pwned)', '"; echo pwned; "', '`id`', '*', ''];

const backends: { name: string; problem: () => Promise<string | undefined>; make: () => SandboxBackend }[] = [
  { name: 'docker', problem: () => dockerProblem(), make: () => new DockerBackend({ labels: testLabels }) },
  { name: 'bwrap', problem: bwrapProblem, make: () => new BwrapBackend() },
  { name: 'process', problem: async () => undefined, make: () => new ProcessBackend({ warn: () => undefined }) },
];

for (const b of backends) {
  describe(`exec takes an argv on ${b.name}`, function () {
    this.timeout(120_000);
    let backend: SandboxBackend;
    before(async function () {
      await needService(this, b.name, b.problem);
      backend = b.make();
    });
    after(() => backend?.dispose());

    it('passes every word through unchanged, as each role', async () => {
      const box = await backend.start(requestFor({}));
      try {
        for (const as of ['agent', 'setup', 'verifier'] as const) {
          const r = await box.exec(['/bin/sh', '-c', 'for w in "$@"; do printf "<%s>\\n" "$w"; done', 'sh', ...hostile], { as });
          assert.equal(r.exitCode, 0, r.stderr);
          assert.equal(r.stdout, hostile.map((w) => `<${w}>\n`).join(''), `role ${as}`);
        }
        const id = await box.exec(['id', '-u']);
        if (b.name !== 'process') assert.equal(id.stdout.trim(), '65534');
        const missing = await box.exec(['no-such-program-here']);
        assert.notEqual(missing.exitCode, 0);
      } finally {
        await box.stop();
      }
    });
  });
}

describe('coevolve sandbox exec -- argv', function () {
  this.timeout(120_000);
  const dir = mkdtempSync(join(tmpdir(), 'coevolve-argv-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("runs `-- sh -c 'a b'` as exactly that argv, and one word as a shell line", async function () {
    await needService(this, 'bwrap', bwrapProblem);
    const env = join(dir, 'e.env.yaml');
    writeFileSync(env, [
      'apiVersion: coevolve/v1', 'kind: Environment', 'id: argv-check', 'title: argv', 'instruction: x',
      'verifier: { script: "true" }', 'oracle: { script: "true" }', 'user: { request: x, goal: x }', '',
    ].join('\n'));
    // Joined into one shell line these words would split and lose the quote; as argv they arrive as $0 and $1.
    const argv = runCli(['sandbox', 'exec', env, '--backend', 'bwrap', '--json', '--', 'sh', '-c', 'echo "[$0]" "[$1]"', 'a b', "it's"]);
    assert.equal(argv.code, 0, argv.stderr);
    assert.equal(JSON.parse(argv.stdout).stdout, "[a b] [it's]\n");
    const line = runCli(['sandbox', 'exec', env, '--backend', 'bwrap', '--json', '--', 'echo one; echo two']);
    assert.equal(JSON.parse(line.stdout).stdout, 'one\ntwo\n');
  });
});
