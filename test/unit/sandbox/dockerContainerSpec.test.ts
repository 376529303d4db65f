import assert from 'node:assert/strict';
import { verifierPaths } from '../../../src/core/ports/sandbox.js';
import { limitsSchema } from '../../../src/core/spec/environment.js';
import { containerSpec } from '../../../src/sandbox/docker/containerSpec.js';
import { channelDir, channelPath } from '../../../src/sandbox/docker/dockerChannel.js';
import { CappedOutput } from '../../../src/sandbox/outputCap.js';
import { perCommandPlan, perCommandResult } from '../../../src/sandbox/docker/perCommandExec.js';
import type { DrainedExec } from '../../../src/sandbox/docker/perCommandExec.js';

const limits = limitsSchema.parse({ memoryMb: 128, pids: 32, cpus: 0.5, diskMb: 16 });
const shape = { image: 'coevolve/busybox:latest', workdir: '/workspace', env: { A: 'b' }, limits };

describe('docker container spec (the sandbox\'s security settings as data)', () => {
  it('has no network, drops every capability but root\'s few, and forbids new privileges', () => {
    const spec = containerSpec({ id: 'coevolve-x', shape, labels: { l: 'v' } });
    assert.equal(spec.NetworkDisabled, true);
    assert.equal(spec.HostConfig?.NetworkMode, 'none');
    assert.deepEqual(spec.HostConfig?.CapDrop, ['ALL']);
    assert.deepEqual(spec.HostConfig?.CapAdd, ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'KILL', 'SETUID', 'SETGID']);
    assert.deepEqual(spec.HostConfig?.SecurityOpt, ['no-new-privileges']);
    assert.equal(spec.HostConfig?.Privileged, undefined);
  });
  it('limits memory (no swap beyond it), processes and CPU from the environment\'s limits', () => {
    const h = containerSpec({ id: 'coevolve-x', shape, labels: {} }).HostConfig!;
    assert.equal(h.Memory, 128 * 1024 * 1024);
    assert.equal(h.MemorySwap, 128 * 1024 * 1024);
    assert.equal(h.PidsLimit, 32);
    assert.equal(h.NanoCpus, 0.5e9);
  });
  it('keeps the root read-only for a non-root agent and the verifier\'s folders empty, root-owned tmpfs', () => {
    const h = containerSpec({ id: 'coevolve-x', shape, labels: {} }).HostConfig!;
    assert.equal(h.ReadonlyRootfs, true);
    assert.match(h.Tmpfs![verifierPaths.tests]!, /^rw,nosuid,nodev,size=16m,mode=0755$/);
    assert.match(h.Tmpfs![verifierPaths.logs]!, /^rw,nosuid,nodev,size=16m,mode=0755$/);
    assert.match(h.Tmpfs![channelDir]!, /mode=0700/);
    assert.equal(containerSpec({ id: 'coevolve-x', shape: { ...shape, agentUser: 'root' as const }, labels: {} }).HostConfig!.ReadonlyRootfs, false);
  });
  it('mounts the channel supervisor read-only, and only when it is bound', () => {
    const bound = containerSpec({ id: 'coevolve-x', shape, labels: {}, channelBinary: '/host/supervisor' }).HostConfig!.Mounts!;
    assert.deepEqual(bound[1], { Type: 'bind', Source: '/host/supervisor', Target: channelPath, ReadOnly: true });
    assert.equal(containerSpec({ id: 'coevolve-x', shape, labels: {} }).HostConfig!.Mounts!.length, 1);
  });
});

describe('docker per-command exec results', () => {
  const drained = (over: Partial<DrainedExec> = {}): DrainedExec => ({ stdout: new CappedOutput(1024), stderr: new CappedOutput(1024), flooded: false, flood: 4096, hostTimedOut: false, cancelled: false, ...over });
  it('resolves the in-container timeout to whole seconds, at least one', () => {
    assert.equal(perCommandPlan(limits, { timeoutMs: 1500 }).timeoutSec, 2);
    assert.equal(perCommandPlan(limits, { timeoutMs: 10 }).timeoutSec, 1);
    assert.equal(perCommandPlan(limits, {}).timeoutMs, 20_000);
    assert.notEqual(perCommandPlan(limits, {}).pidFile, perCommandPlan(limits, {}).pidFile);
  });
  it('reads a kill at the deadline as exit 124, timed out, but not a quick exit 137', () => {
    assert.deepEqual([perCommandResult(drained(), 137, 2000, 2000).exitCode, perCommandResult(drained(), 137, 2000, 2000).timedOut], [124, true]);
    assert.deepEqual([perCommandResult(drained(), 137, 50, 2000).exitCode, perCommandResult(drained(), 137, 50, 2000).timedOut], [137, false]);
    assert.equal(perCommandResult(drained({ hostTimedOut: true }), 0, 10, 2000).timedOut, true);
  });
  it('says a flood stopped the command and marks the output truncated', () => {
    const r = perCommandResult(drained({ flooded: true }), 137, 10, 2000);
    assert.equal(r.truncated, true);
    assert.match(r.stderr, /command stopped after writing more than 4096 bytes/);
  });
});
