import assert from 'node:assert/strict';
import { linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { contextDigest, fsContextReader, defaultContextLimits } from '../../../src/sandbox/build/buildContext.js';
import { planTaskImage } from '../../../src/sandbox/build/buildTaskImage.js';
import { dockerfileSteps, externalFromImages, substituteBases } from '../../../src/sandbox/build/dockerfileSteps.js';
import { parseBaseMap, resolveBuildSources } from '../../../src/sandbox/build/taskBuildSource.js';

const harbor = resolve('test/fixtures/real-tasks/harbor');

describe('Dockerfile steps', () => {
  const text = '# syntax comment\nARG BASE=coevolve/busybox:latest\nFROM ${BASE} AS build\n\nRUN echo a \\\n  # a comment inside\n  && echo b\nFROM build\nFROM scratch\nCOPY --from=build /x /x\n';

  it('numbers instructions by the line they start on, joining continuations and dropping comments', () => {
    const steps = dockerfileSteps(text);
    assert.deepEqual(steps.map((s) => [s.line, s.op]), [[2, 'ARG'], [3, 'FROM'], [5, 'RUN'], [8, 'FROM'], [9, 'FROM'], [10, 'COPY']]);
    assert.match(steps[2]!.text, /echo a\s+&& echo b/);
  });

  it('lists only external FROM images, with ARG defaults and --build-arg substituted', () => {
    assert.deepEqual(externalFromImages(dockerfileSteps(text)), [{ image: 'coevolve/busybox:latest', line: 3, written: '${BASE}' }]);
    assert.equal(externalFromImages(dockerfileSteps(text), { BASE: 'x/y:1' })[0]!.image, 'x/y:1');
  });

  it('swaps a FROM image for a local base and changes nothing else', () => {
    const df = 'FROM ubuntu:24.04\nWORKDIR /app\nRUN echo ubuntu:24.04\n';
    const r = substituteBases(df, { 'ubuntu:24.04': 'coevolve/debian:bookworm' });
    assert.equal(r.text, 'FROM coevolve/debian:bookworm\nWORKDIR /app\nRUN echo ubuntu:24.04\n');
    assert.deepEqual(r.replaced, [{ from: 'ubuntu:24.04', to: 'coevolve/debian:bookworm', line: 1 }]);
    assert.throws(() => parseBaseMap(['ubuntu']), /FROM-IMAGE=LOCAL-IMAGE/);
  });
});

describe('build contexts', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = mkdtempSync(join(tmpdir(), 'coevolve-ctx-'));
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  it('refuses a link that leaves the context, naming it', async () => {
    writeFileSync(join(tmp, 'Dockerfile'), 'FROM coevolve/busybox:latest\n');
    symlinkSync('/etc/passwd', join(tmp, 'passwd'));
    await assert.rejects(fsContextReader.read(tmp, defaultContextLimits), /passwd: is a link to \/etc\/passwd, outside the build context/);
    rmSync(join(tmp, 'passwd'));
    mkdirSync(join(tmp, 'sub'));
    symlinkSync('../../x', join(tmp, 'sub', 'up'));
    await assert.rejects(fsContextReader.read(tmp, defaultContextLimits), /sub\/up: is a link to \.\.\/\.\.\/x/);
  });

  it('keeps links inside, refuses hard links and stops at the byte cap', async () => {
    writeFileSync(join(tmp, 'Dockerfile'), 'FROM coevolve/busybox:latest\n');
    writeFileSync(join(tmp, 'a.txt'), 'a');
    symlinkSync('a.txt', join(tmp, 'b.txt'));
    const entries = await fsContextReader.read(tmp, defaultContextLimits);
    assert.deepEqual(entries.find((e) => e.path === 'b.txt'), { kind: 'symlink', path: 'b.txt', mode: entries.find((e) => e.path === 'b.txt')!.mode, target: 'a.txt' });
    await assert.rejects(fsContextReader.read(tmp, { maxBytes: 10, maxFiles: 100 }), /larger than/);
    linkSync(join(tmp, 'a.txt'), join(tmp, 'c.txt'));
    await assert.rejects(fsContextReader.read(tmp, defaultContextLimits), /a\.txt: is a hard link/);
  });

  it('honours .dockerignore and gives a digest that follows content, modes and build args only', async () => {
    writeFileSync(join(tmp, 'Dockerfile'), 'FROM coevolve/busybox:latest\n');
    writeFileSync(join(tmp, '.dockerignore'), 'secret*\nlogs/\n!logs/keep.log\n');
    writeFileSync(join(tmp, 'secret.key'), 'k');
    mkdirSync(join(tmp, 'logs'));
    writeFileSync(join(tmp, 'logs', 'a.log'), 'x');
    writeFileSync(join(tmp, 'logs', 'keep.log'), 'y');
    writeFileSync(join(tmp, 'data.txt'), 'd');
    const entries = await fsContextReader.read(tmp, defaultContextLimits);
    assert.deepEqual(entries.map((e) => e.path).filter((p) => p !== 'logs').sort(), ['.dockerignore', 'Dockerfile', 'data.txt', 'logs/keep.log']);
    const d1 = contextDigest('FROM x\n', 'Dockerfile', entries, {});
    assert.equal(contextDigest('FROM x\n', 'Dockerfile', entries, {}), d1);
    assert.notEqual(contextDigest('FROM y\n', 'Dockerfile', entries, {}), d1);
    assert.notEqual(contextDigest('FROM x\n', 'Dockerfile', entries, { A: '1' }), d1);
    writeFileSync(join(tmp, 'data.txt'), 'e');
    assert.notEqual(contextDigest('FROM x\n', 'Dockerfile', await fsContextReader.read(tmp, defaultContextLimits), {}), d1);
  });
});

describe('build sources', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = mkdtempSync(join(tmpdir(), 'coevolve-src-'));
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  it('finds every Harbor fixture in a folder of tasks, with task.toml build knobs', () => {
    const sources = resolveBuildSources(harbor, process.cwd());
    assert.ok(sources.length >= 10, `${sources.length} tasks`);
    const s = sources.find((x) => x.name === 'log-level-count')!;
    assert.equal(s.layout, 'harbor');
    assert.equal(s.dockerfile, 'Dockerfile');
    assert.equal(s.timeoutSec, 120);
    assert.equal(s.memoryMb, 256);
    assert.equal(s.shownDockerfile, 'test/fixtures/real-tasks/harbor/log-level-count/environment/Dockerfile');
  });

  it('builds a single-service compose task and refuses a multi-service one with the reason', () => {
    mkdirSync(join(tmp, 'one', 'environment'), { recursive: true });
    writeFileSync(join(tmp, 'one', 'task.toml'), 'version = "1.0"\n');
    writeFileSync(join(tmp, 'one', 'environment', 'docker-compose.yaml'), 'services:\n  main:\n    build:\n      context: .\n      dockerfile: app.Dockerfile\n      args: [MODE=test]\n');
    const [one] = resolveBuildSources(join(tmp, 'one'), tmp, { buildArgs: { EXTRA: '1' } });
    assert.equal(one!.dockerfile, 'app.Dockerfile');
    assert.deepEqual(one!.buildArgs, { MODE: 'test', EXTRA: '1' });
    mkdirSync(join(tmp, 'two', 'environment'), { recursive: true });
    writeFileSync(join(tmp, 'two', 'task.toml'), 'version = "1.0"\n');
    writeFileSync(join(tmp, 'two', 'environment', 'docker-compose.yaml'), 'services:\n  main:\n    build: .\n  db:\n    image: postgres:16\n');
    assert.throws(() => resolveBuildSources(join(tmp, 'two'), tmp), /has 2 services \(main, db\); multi-container tasks are not supported yet: a Coevolve sandbox is a single container with no network/);
  });

  it('takes a folder of imported specs (what `coevolve import --out specs/` writes) as those specs', () => {
    mkdirSync(join(tmp, 'specs'));
    writeFileSync(join(tmp, 'specs', 'a.env.yaml'), `id: a\nprovenance:\n  source: harbor:${join(harbor, 'env-file')}\n`);
    writeFileSync(join(tmp, 'specs', 'b.env.yaml'), `id: b\nprovenance:\n  source: harbor:${join(harbor, 'log-level-count')}\n`);
    writeFileSync(join(tmp, 'specs', 'dana.user.yaml'), 'id: dana\n');
    const sources = resolveBuildSources('specs', tmp);
    assert.deepEqual(sources.map((s) => [s.name, s.source]), [['env-file', 'specs/a.env.yaml'], ['log-level-count', 'specs/b.env.yaml']]);
    mkdirSync(join(tmp, 'empty'));
    assert.throws(() => resolveBuildSources('empty', tmp), /is not a task folder .* and holds none, nor any environment spec/);
  });

  it('follows an imported spec to its task folder and says when a spec has none', () => {
    writeFileSync(join(tmp, 'a.env.yaml'), `id: a\nprovenance:\n  source: harbor:${join(harbor, 'env-file')}\n`);
    const [s] = resolveBuildSources('a.env.yaml', tmp, { bases: { 'ubuntu:24.04': 'coevolve/busybox:latest' } });
    assert.equal(s!.name, 'env-file');
    assert.equal(s!.source, 'a.env.yaml');
    assert.deepEqual(s!.bases, { 'ubuntu:24.04': 'coevolve/busybox:latest' });
    writeFileSync(join(tmp, 'b.env.yaml'), 'id: b\n');
    assert.throws(() => resolveBuildSources('b.env.yaml', tmp), /was not imported from a Harbor or Terminal-Bench 1 task/);
    writeFileSync(join(tmp, 'c.env.yaml'), 'id: c\nprovenance:\n  source: harbor:/nowhere/task\n');
    assert.throws(() => resolveBuildSources('c.env.yaml', tmp), /which is no longer there/);
  });

  it('gives a content-addressed tag that changes when the context changes', async () => {
    const [s] = resolveBuildSources(join(harbor, 'log-level-count'), process.cwd());
    const plan = await planTaskImage(s!);
    assert.match(plan.tag, /^coevolve-task\/log-level-count:[0-9a-f]{16}$/);
    assert.equal((await planTaskImage(s!)).tag, plan.tag);
    assert.notEqual((await planTaskImage({ ...s!, buildArgs: { X: '1' } })).tag, plan.tag);
    assert.deepEqual(plan.froms, [{ image: 'coevolve/busybox:latest', line: 1 }]);
  });
});
