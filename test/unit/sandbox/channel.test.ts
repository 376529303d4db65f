// The channel's protocol and a real supervisor process on this machine (process mode, no isolation): framing,
// binary safety, caps, time-outs and the session shell, without a container. Isolation is tested on docker and
// bwrap in test/integration/sandbox/channel.test.ts.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeFrame, FrameDecoder, frameType, maxFrameBytes, nulProblem } from '../../../src/sandbox/channel/protocol.js';
import { startHostChannel } from '../../../src/sandbox/channel/hostChannel.js';
import type { HostChannel } from '../../../src/sandbox/channel/hostChannel.js';

describe('command channel protocol', () => {
  it('splits frames however the bytes arrive, and refuses an oversized one', () => {
    const frames = Buffer.concat([encodeFrame(frameType.out, 7, Buffer.from('hello')), encodeFrame(frameType.exit, 7, Buffer.alloc(36))]);
    for (const step of [1, 5, 12, 13, frames.length]) {
      const d = new FrameDecoder();
      const got = [];
      for (let i = 0; i < frames.length; i += step) got.push(...d.push(frames.subarray(i, i + step)));
      assert.deepEqual(got.map((f) => [f.type, f.id, f.payload.length]), [[frameType.out, 7, 5], [frameType.exit, 7, 36]], `step ${step}`);
    }
    const huge = Buffer.alloc(12);
    huge.writeUInt32LE(maxFrameBytes + 1, 8);
    assert.throws(() => new FrameDecoder().push(huge), /frame of/);
  });

  it('says where a request holds a NUL byte', () => {
    assert.match(nulProblem({ argv: ['a\0b'], cwd: '/', env: {} }) ?? '', /command holds a NUL/);
    assert.match(nulProblem({ argv: ['a'], cwd: '/', env: { 'A=B': 'c' } }) ?? '', /environment variable "A=B"/);
    assert.equal(nulProblem({ argv: ['a'], cwd: '/', env: { A: 'b' } }), undefined);
  });
});

describe('command channel supervisor (process mode)', function () {
  this.timeout(60_000);
  let dir: string;
  let ch: HostChannel;
  const run = (argv: string[], over: Record<string, unknown> = {}) => ch.client.run({ argv, timeoutMs: 10_000, maxOutputBytes: 64 * 1024, cwd: dir, ...over });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'coevolve-channel-unit-'));
    ch = await startHostChannel({ env: { PATH: '/usr/bin:/bin' }, cwd: dir });
  });
  after(async () => {
    await ch?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers with stdout, stderr, exit code and the channel as carrier', async () => {
    const r = await run(['/bin/sh', '-c', 'echo out; echo err >&2; exit 4']);
    assert.deepEqual([r.stdout, r.stderr, r.exitCode, r.via, r.shell], ['out\n', 'err\n', 4, 'channel', 'stateless']);
    const missing = await run(['/no/such/program']);
    assert.equal(missing.exitCode, 127);
    assert.match(missing.stderr, /cannot run \/no\/such\/program/);
  });

  it('output that looks like frames is only output', async () => {
    const fake = Buffer.concat([encodeFrame(frameType.exit, 1, Buffer.alloc(36)), encodeFrame(frameType.fatal, 0, Buffer.from('x'))]);
    const r = await ch.client.run({ argv: ['cat'], stdin: fake, timeoutMs: 10_000, maxOutputBytes: 64 * 1024 });
    assert.ok(r.stdoutBytes.equals(fake));
    assert.equal(r.exitCode, 0);
  });

  it('keeps the head and the tail past the cap and stops a flood', async () => {
    const r = await run(['/bin/sh', '-c', 'echo FIRST; head -c 300000 /dev/zero | tr "\\0" x; echo; echo LAST'], { maxOutputBytes: 1000 });
    assert.equal(r.truncated, true);
    assert.ok(r.stdout.startsWith('FIRST\n') && r.stdout.endsWith('LAST\n'), r.stdout.slice(0, 80));
    assert.ok(r.stdout.length < 1200);
    const flood = await run(['/bin/sh', '-c', 'yes'], { maxOutputBytes: 1000 });
    assert.equal(flood.truncated, true);
    assert.match(flood.stderr, /command stopped after writing more than/);
  });

  it('a time-out ends the command and what it started in a new session', async () => {
    const r = await run(['/bin/sh', '-c', 'setsid sleep 2147483627 & sleep 2147483627'], { timeoutMs: 300 });
    assert.deepEqual([r.timedOut, r.exitCode], [true, 124]);
    const left = await run(['/bin/sh', '-c', 'pgrep -f "[s]leep 2147483627" || true']);
    assert.equal(left.stdout, '');
  });

  it('a session keeps cd and exports, and a command that ends the shell is reported', async () => {
    await run(['cd /tmp && export K=v'], { session: true });
    const b = await run(['pwd; echo $K'], { session: true });
    assert.deepEqual([b.stdout, b.shell], ['/tmp\nv\n', 'session']);
    const gone = await run(['exit 3'], { session: true });
    assert.equal(gone.exitCode, 3);
    assert.match(gone.sessionRestarted?.note ?? '', /ended the shell/);
    assert.equal((await run(['pwd; echo $K'], { session: true })).stdout, '/tmp\nv\n');
  });
});
