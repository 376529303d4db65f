// The bwrap backend's sandbox spawner (src/sandbox/bwrap/spawner.ts, supervisor.c --spawner): a started process's
// fds arrive as sockets as node's pipes did, its end is reported, a stranger on the spawner's socket gets nothing,
// and nothing it started outlives the host process or the helper.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { channelBinary } from '../../../src/sandbox/channel/binary.js';
import { reapStale } from '../../../src/sandbox/reaper.js';
import { sharedSpawner, spawnerPrefix, type SpawnedSandbox } from '../../../src/sandbox/bwrap/spawner.js';

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    // A zombie is not alive: /proc says so.
    return !/^State:\s+Z/m.test(execFileSync('cat', [`/proc/${pid}/status`], { encoding: 'utf8' }));
  } catch {
    return false;
  }
};

async function readLine(s: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    const on = (c: Buffer): void => {
      text += c.toString();
      if (text.includes('\n')) {
        s.off('data', on);
        resolve(text.split('\n')[0]!);
      }
    };
    s.on('data', on);
  });
}

describe('bwrap sandbox spawner', function () {
  this.timeout(60_000);
  let binary: string;
  before(async function () {
    if (process.platform !== 'linux') this.skip();
    binary = await channelBinary();
  });

  const shell = (script: string): string[] => ['--', '/bin/sh', '-c', script];

  it('gives the started process fds 0/1, 3/4 and 2 as sockets to this process, only PATH in its environment, and reports its exit status', async () => {
    const spawner = await sharedSpawner(binary);
    const s = await spawner.spawn(shell('read a; echo "agent:$a"; read r <&3; echo "root:$r" >&4; echo "diag" >&2; env | sort | tr "\\n" " " >&4; echo >&4; exit 7'), tmpdir());
    assert.ok(s.pid > 0 && alive(s.pid));
    s.agent.write('hello\n');
    assert.equal(await readLine(s.agent), 'agent:hello');
    s.root.write('there\n');
    const rootLines = new Promise<string>((resolve) => {
      let t = '';
      s.root.on('data', (c: Buffer) => (t += c.toString()));
      s.root.on('end', () => resolve(t));
    });
    assert.equal(await s.exited, 7);
    const root = await rootLines;
    assert.match(root, /^root:there\n/);
    assert.match(root, /^PATH=\S+ (PWD=\S+ |SHLVL=\d+ )*$/m, `only PATH (and what sh sets) reaches it: ${root}`);
    assert.equal(s.diagnostics(), 'diag\n');
  });

  it('kill() ends it with SIGKILL (status 137) and nothing of it is left', async () => {
    const spawner = await sharedSpawner(binary);
    const s = await spawner.spawn(shell('exec sleep 1000'), '/');
    assert.ok(alive(s.pid));
    s.kill();
    assert.equal(await s.exited, 137);
    assert.ok(!alive(s.pid));
  });

  it('a launcher that fails says why, from its stderr, with its exit status', async () => {
    const spawner = await sharedSpawner(binary);
    const outcome = (p: Promise<SpawnedSandbox>): Promise<{ status: number; diag: string }> =>
      p.then(async (s) => ({ status: await s.exited, diag: s.diagnostics() }), (err: Error) => ({ status: -1, diag: err.message }));
    const missing = await outcome(spawner.spawn(['--', '/nonexistent/bwrap'], '/'));
    assert.equal(missing.status, 127);
    assert.match(missing.diag, /cannot run \/nonexistent\/bwrap/);
    const bad = await outcome(spawner.spawn(['--rlimit', 'bogus=1', '--', '/bin/true'], '/'));
    assert.equal(bad.status, 127);
    assert.match(bad.diag, /bad rlimit bogus=1/);
    const nowhere = await outcome(spawner.spawn(['--', '/bin/true'], '/nonexistent-folder'));
    assert.match(nowhere.diag, /cannot change to \/nonexistent-folder/);
  });

  it('a stranger on the spawner\'s socket gets nothing: a guessed token, or a hello that is no token, is hung up on', async () => {
    const spawner = await sharedSpawner(binary);
    const dirs = readdirSync(tmpdir()).filter((d) => d.startsWith(`${spawnerPrefix}${process.pid}-`));
    assert.equal(dirs.length, 1, `one private folder for this process's spawner: ${dirs.join(', ')}`);
    const path = join(tmpdir(), dirs[0]!, 's');
    const s = await spawner.spawn(shell('read a; echo "agent:$a"'), '/');
    const attempt = (hello: string): Promise<string> =>
      new Promise((resolve) => {
        const c = connect(path, () => c.write(`${hello}am I the sandbox?\n`));
        let got = '';
        c.on('data', (d: Buffer) => (got += d.toString()));
        c.on('error', () => undefined);
        c.on('close', () => resolve(got));
      });
    assert.equal(await attempt(`${'0'.repeat(32)}a`), '', 'a guessed token is hung up on');
    assert.equal(await attempt('x'.repeat(40)), '', 'a hello that is not a token is hung up on');
    // The real process still has its own channel, and nothing a stranger wrote reached it.
    s.agent.write('mine\n');
    assert.equal(await readLine(s.agent), 'agent:mine');
    assert.equal(await s.exited, 0);
  });

  it('a helper that dies takes what it started with it, and the next start gets a new helper', async () => {
    const spawner = await sharedSpawner(binary);
    const s = await spawner.spawn(shell('exec sleep 1000'), '/');
    const helpers = execFileSync('ps', ['-o', 'pid=', '--ppid', String(process.pid)], { encoding: 'utf8' }).trim().split(/\s+/).map(Number);
    const helper = helpers.find((p) => readlinkOf(p) === binary);
    assert.ok(helper, `the helper is a child of this process (${helpers.join(', ')})`);
    process.kill(helper, 'SIGKILL');
    assert.equal(await s.exited, 137);
    assert.ok(!alive(s.pid), 'the started process died with the helper');
    const next = await sharedSpawner(binary);
    assert.notEqual(next, spawner);
    const t = await next.spawn(shell('exit 3'), '/');
    assert.equal(await t.exited, 3);
  });

  it('the host process exits on its own with the spawner idle, and what it started does not outlive it', () => {
    const module = JSON.stringify(join(__dirname, '../../../src/sandbox/bwrap/spawner.ts'));
    const run = (body: string) => spawnSync(process.execPath, ['--import=tsx', '-e', `const { sharedSpawner } = require(${module});\n(async () => {\nconst spawner = await sharedSpawner(${JSON.stringify(binary)});\n${body}\n})();`], { encoding: 'utf8', timeout: 30_000 });
    const left = run("const s = await spawner.spawn(['--', '/bin/sleep', '1000'], '/'); console.log(s.pid); process.exit(0);");
    assert.equal(left.status, 0, left.stderr);
    const pid = Number(left.stdout.trim());
    assert.ok(pid > 0, left.stdout);
    const deadline = Date.now() + 5_000;
    while (alive(pid) && Date.now() < deadline) spawnSync('sleep', ['0.05']);
    assert.ok(!alive(pid), 'the sleeping process ended with its host');
    // Idle: once what it started has ended, nothing of the helper keeps the host process alive.
    const idle = run("const s = await spawner.spawn(['--', '/bin/true'], '/'); await s.exited; console.log('done');");
    assert.equal(idle.status, 0, `exits on its own (status ${idle.status}, signal ${idle.signal}): ${idle.stderr}`);
    assert.equal(idle.stdout.trim(), 'done');
  });

  it('starts sandboxes with a TMPDIR too long for a socket\'s path (its folder goes to /tmp)', () => {
    const long = join(tmpdir(), `coevolve-long-tmpdir-${'x'.repeat(90)}`);
    mkdirSync(long, { recursive: true });
    try {
      const module = JSON.stringify(join(__dirname, '../../../src/sandbox/bwrap/spawner.ts'));
      const r = spawnSync(process.execPath, ['--import=tsx', '-e', `const { sharedSpawner } = require(${module});\n(async () => { const s = await (await sharedSpawner(${JSON.stringify(binary)})).spawn(['--', '/bin/sh', '-c', 'exit 5'], '/'); console.log(await s.exited); })();`], { encoding: 'utf8', timeout: 30_000, env: { ...process.env, TMPDIR: long } });
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stdout.trim(), '5');
    } finally {
      rmSync(long, { recursive: true, force: true });
    }
  });

  it('a host with a TMPDIR too long for a socket, killed with -9, leaves its folder in /tmp, and the reaper removes it there', () => {
    const long = join(tmpdir(), `coevolve-long-tmpdir-${'y'.repeat(90)}`);
    mkdirSync(long, { recursive: true });
    try {
      const env = { ...process.env, TMPDIR: long };
      const spawnerModule = JSON.stringify(join(__dirname, '../../../src/sandbox/bwrap/spawner.ts'));
      const child = spawnSync(process.execPath, ['--import=tsx', '-e', `const { sharedSpawner } = require(${spawnerModule});\n(async () => { await sharedSpawner(${JSON.stringify(binary)}); process.kill(process.pid, 'SIGKILL'); })();`], { encoding: 'utf8', timeout: 30_000, env });
      assert.equal(child.signal, 'SIGKILL', child.stderr);
      const theirs = (): string[] => readdirSync('/tmp').filter((d) => d.startsWith(`${spawnerPrefix}${child.pid}-`));
      assert.equal(theirs().length, 1, 'the folder is in /tmp, not in the long TMPDIR');
      // The reaper as a run with the same TMPDIR would call it: its tmpdir() is the long folder.
      const reaperModule = JSON.stringify(join(__dirname, '../../../src/sandbox/reaper.ts'));
      const reap = spawnSync(process.execPath, ['--import=tsx', '-e', `const { reapStale } = require(${reaperModule});\nreapStale({ hosts: [{ url: 'tcp://127.0.0.1:1' }] }).then(() => process.exit(0));`], { encoding: 'utf8', timeout: 60_000, env });
      assert.equal(reap.status, 0, reap.stderr);
      assert.deepEqual(theirs(), []);
    } finally {
      rmSync(long, { recursive: true, force: true });
    }
  });

  it('a host killed with -9 leaves its socket folder behind, and the reaper removes it', async () => {
    const module = JSON.stringify(join(__dirname, '../../../src/sandbox/bwrap/spawner.ts'));
    const child = spawnSync(process.execPath, ['--import=tsx', '-e', `const { sharedSpawner } = require(${module});\n(async () => { await sharedSpawner(${JSON.stringify(binary)}); process.kill(process.pid, 'SIGKILL'); })();`], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(child.signal, 'SIGKILL', child.stderr);
    const theirs = (): string[] => readdirSync(tmpdir()).filter((d) => d.startsWith(`${spawnerPrefix}${child.pid}-`));
    assert.equal(theirs().length, 1, 'the folder outlived its process');
    await reapStale({ hosts: [{ url: 'tcp://127.0.0.1:1' }] });
    assert.deepEqual(theirs(), []);
  });
});

function readlinkOf(pid: number): string | undefined {
  try {
    return execFileSync('readlink', [`/proc/${pid}/exe`], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}
