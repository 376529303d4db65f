// `coevolve check` against real Docker: a valid spec passes, a spec whose oracle does not pass fails with the
// verifier's own output and exit 1, a task folder without an oracle is "unvalidated" (not a failure) after its
// image was built from its Dockerfile, and a missing source is an error.
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { runCheck } from '../../../src/cli/commands/check.js';
import { needService } from '../../support/services.js';
import { busyboxImage, dockerProblem, testLabels } from '../sandbox/support.js';

describe('coevolve check (Docker)', function () {
  this.timeout(300_000);
  let tmp: string;
  const labels = { ...testLabels, 'coevolve.owner-pid': String(process.pid) };
  const capture = () => {
    const o = { text: '', cwd: tmp, out: (t: string) => { o.text += t; } };
    return o;
  };

  before(async function () {
    await needService(this, 'docker', () => dockerProblem(busyboxImage));
    tmp = mkdtempSync(join(tmpdir(), 'coevolve-check-test-'));
    cpSync(resolve('environments/log-triage.env.yaml'), join(tmp, 'good.env.yaml'));
    const bad = parse(readFileSync(join(tmp, 'good.env.yaml'), 'utf8')) as { id: string; oracle: { script: string } };
    bad.id = 'bad-oracle';
    bad.oracle.script = 'echo "this oracle does nothing"';
    writeFileSync(join(tmp, 'bad.env.yaml'), stringify(bad));
    const task = join(tmp, 'no-oracle');
    mkdirSync(join(task, 'environment'), { recursive: true });
    mkdirSync(join(task, 'tests'));
    writeFileSync(join(task, 'instruction.md'), 'Write hello to /app/out.txt.\n');
    writeFileSync(join(task, 'task.toml'), 'version = "1.0"\n');
    writeFileSync(join(task, 'environment', 'Dockerfile'), `FROM ${busyboxImage}\nWORKDIR /app\n`);
    writeFileSync(join(task, 'tests', 'test.sh'), '#!/bin/sh\nmkdir -p /logs/verifier; grep -q hello /app/out.txt && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt\n', { mode: 0o755 });
  });
  after(() => {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('passes a valid environment and fails one whose oracle does not pass, with the verifier output, exit 1', async () => {
    const o = capture();
    const r = await runCheck(['good.env.yaml', 'bad.env.yaml'], { backend: 'docker', labels }, o);
    assert.equal(r.code, 1);
    const [good, bad] = r.results;
    assert.equal(good!.status, 'passed', good!.details);
    assert.equal(good!.oracleReward, 1);
    assert.equal(good!.emptyReward, 0);
    assert.equal(bad!.status, 'failed');
    assert.match(bad!.details, /oracle: exit 0, verifier reward 0 \(needs 1\)\. Oracle output: this oracle does nothing/);
    assert.match(bad!.details, /Verifier output: /);
    assert.match(o.text, /^PASS shop-log-billing-errors \(good\.env\.yaml\): oracle 1, empty agent 0$/m);
    assert.match(o.text, /^FAIL bad-oracle \(bad\.env\.yaml\): /m);
    assert.match(o.text, /^1 passed, 1 failed, 0 unvalidated$/m);
  });

  it('builds a task folder\'s image and keeps a task without an oracle as unvalidated (exit 0)', async () => {
    const o = capture();
    const r = await runCheck(['no-oracle'], { backend: 'docker', labels, json: true }, o);
    assert.equal(r.code, 0, JSON.stringify(r.results));
    assert.equal(r.results[0]!.status, 'unvalidated');
    assert.equal(r.results[0]!.emptyReward, 0);
    const printed = JSON.parse(o.text) as { status: string; id: string }[];
    assert.deepEqual(printed.map((p) => [p.id, p.status]), [['no-oracle', 'unvalidated']]);
  });

  it('checks every environment spec of a folder of specs (what `coevolve import --out` writes)', async () => {
    mkdirSync(join(tmp, 'specs'), { recursive: true });
    cpSync(join(tmp, 'good.env.yaml'), join(tmp, 'specs', 'good.env.yaml'));
    writeFileSync(join(tmp, 'specs', 'dana.user.yaml'), 'id: dana\n');
    const o = capture();
    const r = await runCheck(['specs'], { backend: 'docker', labels }, o);
    assert.equal(r.code, 0, o.text);
    assert.deepEqual(r.results.map((x) => [x.source, x.status]), [['specs/good.env.yaml', 'passed']]);
  });

  it('reports a source that does not exist as a failure', async () => {
    const r = await runCheck(['missing.env.yaml'], { backend: 'docker', labels }, capture());
    assert.equal(r.code, 1);
    assert.match(r.results[0]!.details, /missing\.env\.yaml: does not exist/);
  });
});
