// `coevolve sandbox build` against the real Docker engine: task images from their Dockerfile, the layer cache and
// the content-addressed tag, a failing step reported with its Dockerfile line, a missing FROM image named with the
// --pull flag (and --pull refused in CI), and a FROM swapped for a local base.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Docker from 'dockerode';
import { runSandboxBuild } from '../../../src/cli/commands/sandboxBuild.js';
import { needService } from '../../support/services.js';
import { busyboxImage, dockerProblem, testLabels } from '../sandbox/support.js';

const harbor = resolve('test/fixtures/real-tasks/harbor');

function capture(cwd: string) {
  const o = { text: '', errText: '', cwd, out: (t: string) => { o.text += t; }, err: (t: string) => { o.errText += t; } };
  return o;
}

describe('coevolve sandbox build (Docker)', function () {
  this.timeout(300_000);
  const docker = new Docker();
  const labels = { ...testLabels, 'coevolve.owner-pid': String(process.pid) };
  let tmp: string;
  const made: string[] = [];

  before(async function () {
    await needService(this, 'docker', () => dockerProblem(busyboxImage));
    tmp = mkdtempSync(join(tmpdir(), 'coevolve-build-'));
  });
  after(async () => {
    for (const t of made) await docker.getImage(t).remove({ force: true }).catch(() => undefined);
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  function task(name: string, dockerfile: string, files: Record<string, string> = {}): string {
    const dir = join(tmp, name);
    mkdirSync(join(dir, 'environment'), { recursive: true });
    writeFileSync(join(dir, 'environment', 'Dockerfile'), dockerfile);
    for (const [p, c] of Object.entries(files)) writeFileSync(join(dir, 'environment', p), c);
    return dir;
  }

  it('builds a Harbor task image under its content tag, then finds it up to date', async () => {
    const o = capture(process.cwd());
    const first = await runSandboxBuild([join(harbor, 'env-file')], { labels }, o, docker);
    assert.equal(first.code, 0, o.errText);
    const tag = first.results[0]!.tag;
    assert.match(tag, /^coevolve-task\/env-file:[0-9a-f]{16}$/);
    const info = await docker.getImage(tag).inspect();
    assert.equal(info.Config.Labels['coevolve.task'], 'env-file');
    assert.equal(info.Config.WorkingDir, '/app');
    const again = await runSandboxBuild([join(harbor, 'env-file')], { labels }, o, docker);
    assert.equal(again.results[0]!.built, false);
    assert.equal(again.results[0]!.tag, tag);
  });

  it('reports a failing step with its Dockerfile line and the command, and exits 1', async () => {
    const dir = task('fails', `FROM ${busyboxImage}\nWORKDIR /app\n\nRUN echo preparing && \\\n  exit 7\n`);
    const o = capture(tmp);
    const r = await runSandboxBuild(['fails'], { labels }, o, docker);
    assert.equal(r.code, 1);
    assert.match(r.results[0]!.error!, /^fails\/environment\/Dockerfile:4: RUN echo preparing && exit 7 failed: .*returned a non-zero code: 7/);
    assert.match(o.errText, /\| preparing/, 'the build output is shown');
    assert.ok(dir);
  });

  it('names a missing FROM image and the --pull flag, and refuses --pull in CI', async () => {
    task('nobase', 'FROM coevolve-test/not-here:never\nRUN true\n');
    const o = capture(tmp);
    const r = await runSandboxBuild(['nobase'], { labels }, o, docker);
    assert.equal(r.code, 1);
    assert.match(r.results[0]!.error!, /nobase\/environment\/Dockerfile:1: FROM coevolve-test\/not-here:never: the image is not on this Docker host\. Pass --pull/);
    const saved = process.env.CI;
    process.env.CI = 'true';
    try {
      const p = await runSandboxBuild(['nobase'], { labels, pull: true }, o, docker);
      assert.match(p.results[0]!.error!, /--pull is refused in CI/);
    } finally {
      if (saved === undefined) delete process.env.CI;
      else process.env.CI = saved;
    }
  });

  it('builds on a local base in place of the FROM image and records the swap', async () => {
    task('swapped', 'FROM ubuntu:24.04\nRUN echo built > /built.txt\n', { 'data.txt': 'x' });
    const o = capture(tmp);
    const r = await runSandboxBuild(['swapped'], { labels, base: [`ubuntu:24.04=${busyboxImage}`] }, o, docker);
    assert.equal(r.code, 0, o.errText);
    made.push(r.results[0]!.tag);
    const info = await docker.getImage(r.results[0]!.tag).inspect();
    assert.deepEqual(JSON.parse(info.Config.Labels['coevolve.base-substituted']!), [`ubuntu:24.04=${busyboxImage}`]);
    assert.match(o.errText, /Dockerfile:1: FROM ubuntu:24\.04 built on coevolve\/busybox:latest/);
    // A changed context is a new tag (content addressing), built again.
    writeFileSync(join(tmp, 'swapped', 'environment', 'data.txt'), 'y');
    const r2 = await runSandboxBuild(['swapped'], { labels, base: [`ubuntu:24.04=${busyboxImage}`] }, o, docker);
    made.push(r2.results[0]!.tag);
    assert.notEqual(r2.results[0]!.tag, r.results[0]!.tag);
    assert.equal(r2.results[0]!.built, true);
  });
});
