// Issue 11, item 4: importers read only inside their input folder, cap bytes per file, refuse binary and invalid
// UTF-8 with the file named, refuse duplicate ids, and note every dropped or clamped value. The inputs are the
// issue's: tests/test.sh -> /etc/shadow, a linked environment/workspace/app/loot, two tasks with one id, a binary
// and an invalid-UTF-8 instruction, a 3 GB instruction (sparse: no GB is written), inf/nan in task.toml.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { importHarborTasks } from '../../../src/datasets/harborImport.js';
import { formatImportReport } from '../../../src/datasets/importReport.js';
import { importTau2Tasks } from '../../../src/datasets/tau2Import.js';

const countErrors = resolve('test/fixtures/harbor/count-errors');
const tau2Tasks = resolve('test/fixtures/tau2/airline/tasks.json');

describe('hostile import input (issue 11, item 4)', () => {
  let tmp: string;
  let outside: string;
  beforeEach(() => {
    tmp = mkdtempSync(join(tmpdir(), 'coevolve-hostile-import-'));
    outside = mkdtempSync(join(tmpdir(), 'coevolve-host-secrets-'));
    writeFileSync(join(outside, 'id_rsa'), 'HOST-SECRET-KEY\n');
  });
  afterEach(() => {
    rmSync(tmp, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  /** A copy of the count-errors fixture (a valid task) to attack. */
  const task = (name: string, parent = tmp): string => {
    const dir = join(parent, name);
    cpSync(countErrors, dir, { recursive: true });
    return dir;
  };
  const everything = (r: unknown): string => JSON.stringify(r);

  it('tests/test.sh -> /etc/shadow: the link is refused, the shadow file is never read', () => {
    const dir = task('shadow');
    rmSync(join(dir, 'tests/test.sh'));
    symlinkSync('/etc/shadow', join(dir, 'tests/test.sh'));
    const r = importHarborTasks([dir]);
    assert.equal(r.imported.length, 0);
    assert.equal(r.skipped.length, 1);
    assert.match(r.skipped[0]!.reason, /tests\/test\.sh: a symbolic link that leads outside the input folder; not read/);
    const shadow = readFileSync('/etc/shadow', 'utf8');
    assert.ok(!everything(r).includes(shadow.split('\n')[0]!), 'no line of /etc/shadow in the result');
  });

  it('a linked environment/workspace/app/loot (folder and file) puts no host file into sandbox.files', () => {
    const dir = task('loot');
    writeFileSync(join(dir, 'environment/Dockerfile'), '# coevolve-harbor-export v1\nFROM coevolve/busybox:latest\nWORKDIR /app\nCOPY workspace/ /app/\n');
    mkdirSync(join(dir, 'environment/workspace/app'), { recursive: true });
    writeFileSync(join(dir, 'environment/workspace/app/main.py'), 'print(1)\n');
    symlinkSync(outside, join(dir, 'environment/workspace/app/loot'));
    symlinkSync(join(outside, 'id_rsa'), join(dir, 'environment/workspace/app/key'));
    // A link that stays inside the folder is resolved there.
    symlinkSync('main.py', join(dir, 'environment/workspace/app/alias.py'));
    const r = importHarborTasks([dir]);
    assert.equal(r.imported.length, 1, formatImportReport('environments', r));
    const item = r.imported[0]!;
    const files = item.spec.sandbox.files.map((f) => f.path).sort();
    assert.deepEqual(files, ['app/alias.py', 'app/main.py']);
    assert.equal(item.spec.sandbox.files.find((f) => f.path === 'app/alias.py')!.content, 'print(1)\n');
    assert.ok(!everything(r).includes('HOST-SECRET-KEY'), 'no host file content anywhere in the result');
    assert.ok(item.unmapped.some((u) => /^environment\/workspace\/app\/loot: a symbolic link that leads outside the input folder; not read/.test(u)), item.unmapped.join('\n'));
    assert.ok(item.unmapped.some((u) => /^environment\/workspace\/app\/key: a symbolic link that leads outside/.test(u)));
  });

  it('a task folder that is itself a link out of the dataset folder is refused', () => {
    const dataset = join(tmp, 'dataset');
    mkdirSync(dataset);
    task('real', dataset);
    task('elsewhere', outside);
    symlinkSync(join(outside, 'elsewhere'), join(dataset, 'linked'));
    const r = importHarborTasks([dataset]);
    assert.deepEqual(r.imported.map((i) => i.id), ['real']);
    assert.match(r.skipped.map((s) => `${s.source}: ${s.reason}`).join('\n'), /linked: a symbolic link that leads outside the input folder/);
  });

  it('two tasks with one id: the first is imported, the second refused naming the first', () => {
    mkdirSync(join(tmp, 'suite-1'));
    mkdirSync(join(tmp, 'suite-2'));
    task('count-errors', join(tmp, 'suite-1'));
    task('count-errors', join(tmp, 'suite-2'));
    const r = importHarborTasks([tmp]);
    assert.deepEqual(r.imported.map((i) => i.id), ['count-errors']);
    assert.match(r.imported[0]!.source, /suite-1\/count-errors$/);
    assert.equal(r.skipped.length, 1);
    assert.match(r.skipped[0]!.source, /suite-2\/count-errors$/);
    assert.match(r.skipped[0]!.reason, /id "count-errors" is already taken by .*suite-1\/count-errors in this import/);
    assert.match(formatImportReport('environments', r), /1 environments imported, 1 skipped/);
  });

  it('a binary instruction and an invalid UTF-8 instruction are refused with the file named', () => {
    writeFileSync(join(task('binary'), 'instruction.md'), Buffer.from([0x23, 0x20, 0x41, 0x00, 0x01, 0x02, 0x0a]));
    writeFileSync(join(task('latin1'), 'instruction.md'), Buffer.from('# Caf\xe9 au lait\n', 'latin1'));
    const r = importHarborTasks([tmp]);
    assert.equal(r.imported.length, 0);
    const why = (name: string) => r.skipped.find((s) => s.source.endsWith(`/${name}`))!.reason;
    assert.match(why('binary'), /instruction\.md: is binary \(a NUL byte at offset 3\); an instruction is text/);
    assert.match(why('latin1'), /instruction\.md: is not valid UTF-8 text \(first bad byte at offset 5\)/);
  });

  it('a 3 GB instruction (sparse) is refused by its size, before it is read', () => {
    const dir = task('huge');
    truncateSync(join(dir, 'instruction.md'), 3 * 1024 ** 3);
    const before = process.memoryUsage().rss;
    const r = importHarborTasks([dir]);
    assert.equal(r.imported.length, 0);
    assert.match(r.skipped[0]!.reason, /instruction\.md: is 3 GiB, larger than the 256 KiB an instruction may hold/);
    assert.ok(process.memoryUsage().rss - before < 256 * 1024 ** 2, 'nothing near the file size was allocated');
  });

  it('a FIFO or a /dev/zero link as instruction.md skips the task without blocking or reading', () => {
    rmSync(join(task('fifo'), 'instruction.md'));
    spawnSync('mkfifo', [join(tmp, 'fifo/instruction.md')]);
    rmSync(join(task('zero'), 'instruction.md'));
    symlinkSync('/dev/zero', join(tmp, 'zero/instruction.md'));
    const r = importHarborTasks([tmp]);
    assert.equal(r.imported.length, 0);
    const why = (name: string) => r.skipped.find((s) => s.source.endsWith(`/${name}`))!.reason;
    assert.match(why('fifo'), /^instruction\.md: not a regular file \(a FIFO\); not read$/);
    assert.match(why('zero'), /^instruction\.md: a symbolic link that leads outside the input folder; not read$/);
  });

  it('a 5 MiB workspace file is left out with a note naming it; the task still imports', () => {
    const dir = task('bigfile');
    writeFileSync(join(dir, 'environment/Dockerfile'), '# coevolve-harbor-export v1\nFROM coevolve/busybox:latest\nWORKDIR /app\nCOPY workspace/ /app/\n');
    mkdirSync(join(dir, 'environment/workspace'), { recursive: true });
    writeFileSync(join(dir, 'environment/workspace/data.csv'), '');
    truncateSync(join(dir, 'environment/workspace/data.csv'), 5 * 1024 ** 2);
    writeFileSync(join(dir, 'environment/workspace/small.txt'), 'ok\n');
    const r = importHarborTasks([dir]);
    assert.equal(r.imported.length, 1);
    assert.deepEqual(r.imported[0]!.spec.sandbox.files.map((f) => f.path), ['small.txt']);
    assert.ok(r.imported[0]!.unmapped.some((u) => /^environment\/workspace\/data\.csv: is 5 MiB, larger than the 4 MiB a spec file may hold; not imported/.test(u)), r.imported[0]!.unmapped.join('\n'));
  });

  it('inf and nan in task.toml are noted, never dropped silently', () => {
    const dir = task('nonfinite');
    writeFileSync(join(dir, 'task.toml'), [
      'version = "1.0"',
      '[metadata]',
      'difficulty = "medium"',
      'tags = ["grep", "' + 'x'.repeat(100) + '", 7]',
      '[verifier]',
      'timeout_sec = inf',
      '[environment]',
      'cpus = nan',
      'memory_mb = -inf',
      'storage_mb = 100000000',
      '',
    ].join('\n'));
    const r = importHarborTasks([dir]);
    assert.equal(r.imported.length, 1, formatImportReport('environments', r));
    const notes = r.imported[0]!.unmapped.join('\n');
    assert.match(notes, /verifier\.timeout_sec = inf: not a finite number; dropped, the default applies/);
    assert.match(notes, /environment\.cpus = nan: not a finite number; dropped, the default applies/);
    assert.match(notes, /environment\.memory_mb = -inf: not a finite number; dropped, the default applies/);
    assert.match(notes, /environment\.storage_mb = 100000000: outside 1\.\.65536, set to 65536/);
    assert.match(notes, /metadata\.tags: 2 of 3 tags dropped \(not text, or longer than 64 characters\)/);
    const spec = r.imported[0]!.spec;
    assert.equal(spec.verifier.timeoutSec, 60);
    assert.equal(spec.sandbox.limits.cpus, 1);
  });

  describe('tau2, same rules', () => {
    it('a tasks file that links outside its folder is refused; one inside is read', () => {
      const dir = join(tmp, 'airline');
      mkdirSync(dir);
      cpSync(tau2Tasks, join(outside, 'tasks.json'));
      symlinkSync(join(outside, 'tasks.json'), join(dir, 'tasks.json'));
      cpSync(tau2Tasks, join(dir, 'real.json'));
      symlinkSync('real.json', join(dir, 'alias.json'));
      const r = importTau2Tasks([join(dir, 'tasks.json'), join(dir, 'alias.json')]);
      assert.match(r.skipped.find((s) => s.source.endsWith('tasks.json'))!.reason, /a symbolic link that leads outside the input folder; not read/);
      assert.equal(r.imported.length, 3);
    });

    it('binary, invalid UTF-8, oversized and FIFO task files are refused with the file named', () => {
      writeFileSync(join(tmp, 'bin.json'), Buffer.from([0x5b, 0x00, 0x5d]));
      writeFileSync(join(tmp, 'latin1.json'), Buffer.from('[{"id": "caf\xe9"}]', 'latin1'));
      writeFileSync(join(tmp, 'huge.json'), '');
      truncateSync(join(tmp, 'huge.json'), 3 * 1024 ** 3);
      spawnSync('mkfifo', [join(tmp, 'fifo.json')]);
      const r = importTau2Tasks(['bin.json', 'latin1.json', 'huge.json', 'fifo.json'].map((f) => join(tmp, f)));
      assert.equal(r.imported.length, 0);
      const why = (f: string) => r.skipped.find((s) => s.source.endsWith(f))!.reason;
      assert.match(why('bin.json'), /bin\.json: is binary \(a NUL byte at offset 1\)/);
      assert.match(why('latin1.json'), /latin1\.json: is not valid UTF-8 text \(first bad byte at offset 12\)/);
      assert.match(why('huge.json'), /huge\.json: is 3 GiB, larger than the 256 MiB a tasks file may hold/);
      assert.match(why('fifo.json'), /fifo\.json: not a regular file \(a FIFO\); not read/);
    });

    it('two files with the same tasks: the second copy of each id is refused, never both imported', () => {
      cpSync(tau2Tasks, join(tmp, 'a.json'));
      cpSync(tau2Tasks, join(tmp, 'b.json'));
      const r = importTau2Tasks([join(tmp, 'a.json'), join(tmp, 'b.json')], { domain: 'airline' });
      const ids = r.imported.map((i) => i.id);
      assert.equal(new Set(ids).size, ids.length);
      assert.ok(r.skipped.filter((s) => /already taken/.test(s.reason)).length >= 3);
    });
  });
});
