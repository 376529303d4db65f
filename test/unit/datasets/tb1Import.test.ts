import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { importTb1Tasks } from '../../../src/datasets/tb1Import.js';

const fixtures = resolve('test/fixtures/real-tasks/tb1');

describe('Terminal-Bench 1 import', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = mkdtempSync(join(tmpdir(), 'coevolve-tb1-'));
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  it('converts each fixture to a Harbor task folder and imports it, saying what was not mapped', () => {
    const r = importTb1Tasks([fixtures], { harborOut: join(tmp, 'harbor') });
    assert.deepEqual(r.skipped, []);
    assert.deepEqual(r.imported.map((i) => i.id).sort(), ['count-python-files', 'reverse-lines', 'sort-numbers']);
    const rev = join(tmp, 'harbor', 'reverse-lines');
    assert.equal(readFileSync(join(rev, 'instruction.md'), 'utf8'), 'The file /app/input.txt has one word per line.\nWrite the same lines in reverse order to /app/output.txt.\n');
    const toml = parseToml(readFileSync(join(rev, 'task.toml'), 'utf8')) as { metadata: Record<string, unknown>; verifier: { timeout_sec: number }; agent: { timeout_sec: number } };
    assert.equal(toml.metadata.category, 'file-operations');
    assert.equal(toml.verifier.timeout_sec, 60);
    assert.equal(toml.agent.timeout_sec, 180);
    assert.equal(readFileSync(join(rev, 'environment', 'Dockerfile'), 'utf8'), readFileSync(join(fixtures, 'reverse-lines', 'Dockerfile'), 'utf8'));
    assert.ok(statSync(join(rev, 'environment', 'input.txt')).isFile(), 'the build context is carried');
    assert.match(readFileSync(join(rev, 'tests', 'test.sh'), 'utf8'), /export TEST_DIR=\/tests[\s\S]*bash \/tests\/run-tests\.sh[\s\S]*\/logs\/verifier\/reward\.txt/);
    assert.match(readFileSync(join(rev, 'tests', 'test.sh'), 'utf8'), /coevolve-fixture-canary GUID 0b6f2c1e/);
    const item = r.imported.find((i) => i.id === 'reverse-lines')!;
    assert.match(item.spec.provenance.source!, /^terminal-bench-1:.*reverse-lines$/);
    assert.equal(item.spec.provenance.canary?.includes('0b6f2c1e'), true);
    const sorted = r.imported.find((i) => i.id === 'sort-numbers')!;
    assert.ok(sorted.unmapped.some((u) => u.startsWith('run_tests_in_same_shell = true')));
    const count = readFileSync(join(tmp, 'harbor', 'count-python-files', 'solution', 'solve.sh'), 'utf8');
    assert.match(count, /find \/app\/src -type f -name '\*\.py' \| wc -l > \/app\/count\.txt/, 'solution.yaml commands become solve.sh');
  });

  it('refuses a multi-service compose, a missing instruction and a link out of the task', () => {
    const task = (name: string, yaml: string): string => {
      const d = join(tmp, 'src', name);
      mkdirSync(join(d, 'tests'), { recursive: true });
      writeFileSync(join(d, 'task.yaml'), yaml);
      writeFileSync(join(d, 'Dockerfile'), 'FROM coevolve/busybox:latest\n');
      writeFileSync(join(d, 'run-tests.sh'), 'exit 0\n');
      return d;
    };
    const multi = task('multi', 'instruction: do it\n');
    writeFileSync(join(multi, 'docker-compose.yaml'), 'services:\n  client:\n    build: .\n  db:\n    image: postgres\n');
    task('empty', 'author_name: x\n');
    const linked = task('linked', 'instruction: do it\n');
    symlinkSync('/etc/hostname', join(linked, 'hostname.txt'));
    const r = importTb1Tasks([join(tmp, 'src')], { harborOut: join(tmp, 'harbor') });
    const why = (n: string): string => r.skipped.find((s) => s.source.endsWith(`/${n}`))?.reason ?? '';
    assert.match(why('multi'), /2 services \(client, db\); multi-container tasks are not supported yet/);
    assert.match(why('empty'), /no instruction/);
    const linkedItem = r.imported.find((i) => i.id === 'linked');
    assert.ok(linkedItem, 'the task itself imports');
    assert.ok(linkedItem.unmapped.some((u) => u.startsWith('hostname.txt:') && /outside/.test(u)), 'the link out is left out with a note');
    assert.throws(() => statSync(join(tmp, 'harbor', 'linked', 'environment', 'hostname.txt')));
  });
});
