// The pure parts of running an imported task as Harbor does: how the verifier script is started (its interpreter
// line), Harbor's reward rule, what task.toml's user / env / allow_internet map to, and the collected logs parser.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pack } from 'tar-stream';
import { environmentSpecSchema, type EnvironmentSpec } from '../../../src/core/spec/environment.js';
import { rewardOf, verifierEnvironment, verifierLaunch } from '../../../src/core/rollout/verification.js';
import { importHarborTasks } from '../../../src/datasets/harborImport.js';
import { parseCollectedLogs } from '../../../src/sandbox/transfer/collectLogs.js';

const base = environmentSpecSchema.parse({
  apiVersion: 'coevolve/v1', kind: 'Environment', id: 'x', title: 'X', family: 'custom', instruction: 'Do it.',
  sandbox: { image: 'coevolve/busybox:latest' }, verifier: { script: 'true' }, oracle: { script: 'true' },
  user: { request: 'Do it.', goal: 'Done.' },
});
const withVerifier = (verifier: Partial<EnvironmentSpec['verifier']>): EnvironmentSpec => environmentSpecSchema.parse({ ...base, verifier: { ...base.verifier, ...verifier } });
const run = (exitCode: number) => ({ exitCode, stdout: '', stderr: '', timedOut: false, durationMs: 1 });

describe('Harbor verifier rules', () => {
  it('runs a script with an interpreter line as the kernel would, from /tests/test.sh; sh scripts as before', () => {
    assert.deepEqual(verifierLaunch(withVerifier({ script: '#!/bin/bash\necho hi\n' })), { argv: ['/bin/bash', '/tests/test.sh'], file: { path: 'test.sh', content: '#!/bin/bash\necho hi\n', mode: '755' } });
    assert.deepEqual(verifierLaunch(withVerifier({ script: '#!/usr/bin/env python3\nprint(1)\n' })).argv, ['/usr/bin/env', 'python3', '/tests/test.sh']);
    // A verifier file already named test.sh keeps its name; the script goes beside it.
    assert.deepEqual(verifierLaunch(withVerifier({ script: '#!/bin/bash -e\ntrue\n', files: [{ path: 'test.sh', content: 'x' }] })).argv, ['/bin/bash', '-e', '/tests/.coevolve-verifier']);
    for (const script of ['#!/bin/sh\necho hi\n', 'echo no interpreter line\n', ' #!/bin/bash\n']) {
      assert.deepEqual(verifierLaunch(withVerifier({ script })), { argv: ['/bin/sh', '-c', script] });
    }
  });

  it('reads Harbor\'s reward rule: the file decides whatever the exit, no file is 0', () => {
    const file = (text: string) => ({ kind: 'text' as const, name: '/logs/verifier/reward.txt', text });
    assert.equal(rewardOf(run(1), file('1'), true, true).reward, 1);
    assert.equal(rewardOf(run(0), file('0.5'), true, true).reward, 0.5);
    const none = rewardOf(run(0), { kind: 'none' }, true, true);
    assert.equal(none.reward, 0);
    assert.match(none.note ?? '', /requires one \(Harbor's rule\)/);
    // Coevolve's own default is unchanged: exit 0 without a file is 1, a failing exit 0.
    assert.equal(rewardOf(run(0), { kind: 'none' }, false).reward, 1);
    assert.equal(rewardOf(run(1), file('1'), false).reward, 0);
  });

  it('gives the verifier its own env after the sandbox env, and nothing of the oracle\'s', () => {
    const env = environmentSpecSchema.parse({ ...base, sandbox: { ...base.sandbox, env: { A: 'sandbox', B: 'sandbox' } }, verifier: { script: 'true', env: { B: 'verifier' } }, oracle: { script: 'true', env: { C: 'oracle' } } });
    const v = verifierEnvironment(env);
    assert.deepEqual([v.A, v.B, v.C, v.PATH], ['sandbox', 'verifier', undefined, '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin']);
  });
});

describe('Harbor task.toml runtime fields', () => {
  let tmp: string;
  const task = (name: string, toml: string, dockerfile = 'FROM coevolve/busybox:latest\nWORKDIR /app\n'): string => {
    const dir = join(tmp, name);
    cpSync(resolve('test/fixtures/real-tasks/harbor/log-level-count'), dir, { recursive: true });
    writeFileSync(join(dir, 'task.toml'), toml);
    writeFileSync(join(dir, 'environment', 'Dockerfile'), dockerfile);
    return dir;
  };
  before(() => { tmp = mkdtempSync(join(tmpdir(), 'coevolve-harbor-rt-')); });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('maps [verifier] env, [solution] env and [agent] timeout_sec, and the agent user', () => {
    const dir = task('envs', 'version = "1.0"\n[verifier]\nenv = { API_MODE = "strict", N = 3 }\n[solution]\nenv = { HELP = "yes" }\n[agent]\ntimeout_sec = 42\n');
    const r = importHarborTasks([dir]);
    const spec = r.imported[0]!.spec;
    assert.deepEqual(spec.verifier.env, { TEST_DIR: '/tests', API_MODE: 'strict', N: '3' });
    assert.deepEqual(spec.oracle.env, { HELP: 'yes' });
    assert.equal(spec.sandbox.limits.agentTimeoutSec, 42);
    assert.equal(spec.sandbox.agentUser, 'root');
    const user = importHarborTasks([task('user', 'version = "1.0"\n', 'FROM coevolve/busybox:latest\nUSER app\nWORKDIR /app\n')]).imported[0]!;
    assert.equal(user.spec.sandbox.agentUser, 'nobody');
    assert.ok(user.unmapped.some((u) => /Dockerfile USER = "app": the agent runs as uid 65534/.test(u)), user.unmapped.join('\n'));
  });

  it('refuses a task that needs the network, loudly', () => {
    const r = importHarborTasks([task('net', 'version = "1.0"\n[environment]\nallow_internet = true\n')]);
    assert.equal(r.imported.length, 0);
    assert.match(r.skipped[0]!.reason, /allow_internet = true, and Coevolve sandboxes never have a network/);
  });
});

describe('collected /logs/agent and /logs/artifacts', () => {
  it('keeps regular files as text or base64 and drops links, special files, bad names and floods', async () => {
    const tar = pack();
    tar.entry({ name: 'agent/', type: 'directory' });
    tar.entry({ name: 'agent/notes.txt' }, 'hello\n');
    tar.entry({ name: 'artifacts/raw.bin' }, Buffer.from([0xff, 0x00]));
    tar.entry({ name: 'agent/link', type: 'symlink', linkname: '/etc/passwd' });
    tar.entry({ name: 'agent/fifo', type: 'fifo' });
    tar.entry({ name: 'verifier/reward.txt' }, '1');
    tar.entry({ name: 'agent/big.log' }, Buffer.alloc(300 * 1024, 97));
    tar.finalize();
    const chunks: Buffer[] = [];
    for await (const c of tar as unknown as AsyncIterable<Buffer>) chunks.push(c);
    const logs = await parseCollectedLogs(Buffer.concat(chunks));
    assert.deepEqual(logs.files, [
      { path: 'agent/notes.txt', bytes: 6, encoding: 'utf8', content: 'hello\n' },
      { path: 'artifacts/raw.bin', bytes: 2, encoding: 'base64', content: '/wA=' },
    ]);
    assert.deepEqual(logs.dropped.map((d) => d.path), ['agent/link', 'agent/fifo', 'verifier/reward.txt', 'agent/big.log']);
  });
});
