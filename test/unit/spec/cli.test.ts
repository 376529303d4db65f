import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInit } from '../../../src/cli/commands/init.js';
import { runSchema } from '../../../src/cli/commands/schema.js';
import { runValidate } from '../../../src/cli/commands/validate.js';
import { UserError } from '../../../src/cli/errors.js';

const root = join(__dirname, '../../..');

function capture(cwd = root): { out: (t: string) => void; cwd: string; text: () => string } {
  let buf = '';
  return { out: (t) => { buf += t; }, cwd, text: () => buf };
}

const builtCli = join(root, 'dist/cli.js');

/** Runs the built CLI as a user would. `npm test` builds first; a direct mocha run builds only when it is missing. */
function cli(args: string[], cwd = root): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [builtCli, ...args], { cwd, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('coevolve validate / schema / init', () => {
  let tmp: string;
  beforeEach(() => { tmp = mkdtempSync(join(tmpdir(), 'coevolve-cli-')); });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  it('validate prints file:line:column: severity: message relative to cwd, a summary, and exits 1 on errors', async () => {
    const io = capture();
    const code = await runValidate(['test/fixtures/specs/malformed/wrong-type-number.env.yaml', 'test/fixtures/specs/malformed/unknown-key-typo.env.yaml'], {}, io);
    assert.equal(code, 1);
    assert.equal(io.text(), [
      'test/fixtures/specs/malformed/unknown-key-typo.env.yaml:14:3: error: unknown key "timout" in verifier; did you mean "timeoutSec"?',
      'test/fixtures/specs/malformed/wrong-type-number.env.yaml:8:15: error: sandbox.limits.memoryMb: expected an integer between 16 and 65536, got "lots"',
      '2 errors in 2 of 2 spec files',
      '',
    ].join('\n'));
  });

  it('validate --json prints the problem objects', async () => {
    const io = capture();
    assert.equal(await runValidate(['test/fixtures/specs/malformed/dangling-fact.env.yaml'], { json: true }, io), 1);
    assert.deepEqual(JSON.parse(io.text()), [{
      file: 'test/fixtures/specs/malformed/dangling-fact.env.yaml', line: 21, column: 25, endLine: 21, endColumn: 30, severity: 'error',
      message: 'user.requiredFacts[1]: required fact "owner" is not defined in user.facts', path: ['user', 'requiredFacts', 1],
    }]);
  });

  it('validate reports a missing path and an empty folder without counting them as spec files', async () => {
    const io = capture(tmp);
    assert.equal(await runValidate(['nothere.env.yaml', '.'], {}, io), 1);
    assert.equal(io.text(), [
      '.:1:1: warning: no spec files (*.env.yaml, *.user.yaml, *.agent.yaml, *.run.yaml) in this folder',
      'nothere.env.yaml:1:1: error: no such file or folder',
      '1 error and 1 warning; 0 spec files checked',
      '',
    ].join('\n'));
  });

  it('validate over the examples exits 0', async () => {
    const io = capture();
    assert.equal(await runValidate(['environments'], {}, io), 0);
    assert.match(io.text(), /^\d+ spec files checked, no problems\n$/);
  });

  it('schema writes the four spec schemas and the two output schemas, and --check finds them current', () => {
    const io = capture(tmp);
    assert.equal(runSchema({ out: 'schemas' }, io), 0);
    assert.deepEqual(readdirSync(join(tmp, 'schemas')).sort(), ['agent.schema.json', 'environment.schema.json', 'eval-result.schema.json', 'generation-metrics.schema.json', 'run.schema.json', 'user.schema.json']);
    const check = capture(tmp);
    assert.equal(runSchema({ out: 'schemas', check: true }, check), 0);
    assert.equal(runSchema({ out: 'elsewhere', check: true }, capture(tmp)), 1);
  });

  it('init scaffolds a workspace that validates clean, and refuses to overwrite, naming the files', async () => {
    const io = capture(tmp);
    assert.equal(runInit('ws', io), 0);
    assert.match(io.text(), /^created 11 files in ws\/environments:\n/);
    assert.equal(await runValidate(['ws'], {}, capture(tmp)), 0);
    assert.throws(() => runInit('ws', capture(tmp)), (err: unknown) => {
      assert.ok(err instanceof UserError);
      assert.match(err.message, /^init writes nothing, because these files exist already: ws\/environments\/example\.run\.yaml, ws\/environments\/log-triage\.env\.yaml, .*; move them away or choose another folder$/);
      return true;
    });
  });

  it('the built CLI: exit codes, and a one-line error without a stack trace unless --verbose', function () {
    this.timeout(60_000);
    if (!existsSync(builtCli)) assert.equal(spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' }).status, 0);
    const bad = cli(['validate', 'test/fixtures/specs/malformed/tab-indent.env.yaml']);
    assert.equal(bad.status, 1);
    assert.equal(bad.stdout, 'test/fixtures/specs/malformed/tab-indent.env.yaml:8:1: error: tab character used for indentation; YAML indents with spaces only — replace the tab with spaces\n1 error in 1 of 1 spec file\n');

    assert.equal(cli(['init', tmp]).status, 0);
    const again = cli(['init', tmp]);
    assert.equal(again.status, 1);
    assert.match(again.stderr, /^coevolve: init writes nothing, because these files exist already: /);
    assert.doesNotMatch(again.stderr, /\n\s+at /, 'no stack trace');
    const verbose = cli(['--verbose', 'init', tmp]);
    assert.match(verbose.stderr, /\n\s+at /, 'stack trace with --verbose');
  });
});
