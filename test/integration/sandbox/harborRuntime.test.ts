// Harbor's runtime conventions on the docker backend, through the product's own verifier (verify()): the image's
// files at the workdir are in the workspace, a root agent gets a writable root and its processes all end before
// verification (the container's own survive), /logs/agent and /logs/artifacts are collected as data, test.sh runs
// by its interpreter line, and Harbor's reward rule (the reward file decides, none is 0) holds.
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import Docker from 'dockerode';
import type { EnvironmentSpec } from '../../../src/core/spec/environment.js';
import { environmentSpecSchema } from '../../../src/core/spec/environment.js';
import { sandboxRequest } from '../../../src/core/rollout/engine.js';
import { verificationRecord, verify } from '../../../src/core/rollout/verification.js';
import { runSandboxBuild } from '../../../src/cli/commands/sandboxBuild.js';
import { importHarborTasks } from '../../../src/datasets/harborImport.js';
import { DockerBackend } from '../../../src/sandbox/docker/dockerBackend.js';
import { SandboxFaultError, SandboxHostLostError } from '../../../src/core/ports/sandbox.js';
import { playHack } from '../../support/hackPlay.js';
import { startModelServer } from '../../support/modelServer.js';
import { needService } from '../../support/services.js';
import { dockerProblem, leftovers, testLabels } from './support.js';

const task = resolve('test/fixtures/real-tasks/harbor/log-level-count');
// A Debian-based task, for bash.
const bashTask = resolve('test/fixtures/real-tasks/harbor/fizzbuzz-script');

describe('Harbor runtime conventions (docker, product verifier)', function () {
  this.timeout(300_000);
  const docker = new Docker();
  const backend = new DockerBackend({ labels: testLabels });
  let spec: EnvironmentSpec;
  let bashSpec: EnvironmentSpec;

  before(async function () {
    await needService(this, 'docker', () => dockerProblem());
    const o = { cwd: process.cwd(), out: () => undefined, err: () => undefined };
    const built = await runSandboxBuild([task, bashTask], { labels: { ...testLabels } }, o, docker);
    assert.equal(built.code, 0);
    const imported = importHarborTasks([task, bashTask]);
    assert.equal(imported.imported.length, 2, JSON.stringify(imported.skipped));
    [spec, bashSpec] = imported.imported.map((i, n) => ({ ...i.spec, sandbox: { ...i.spec.sandbox, image: built.results[n]!.tag } })) as [EnvironmentSpec, EnvironmentSpec];
  });
  after(async () => {
    await backend.dispose();
    const left = await leftovers(docker);
    assert.deepEqual(left, { containers: [], volumes: [] });
  });

  const withVerifier = (script: string, base = spec): EnvironmentSpec => environmentSpecSchema.parse({ ...base, verifier: { ...base.verifier, script } });

  it('imports the task as Harbor runs it: root agent, the reward file decides, TEST_DIR, the agent timeout', () => {
    assert.equal(spec.sandbox.agentUser, 'root');
    assert.equal(spec.verifier.partialCredit, true);
    assert.equal(spec.verifier.requireRewardFile, true);
    assert.equal(spec.verifier.env?.TEST_DIR, '/tests');
    assert.equal(spec.sandbox.limits.agentTimeoutSec, 300);
    assert.equal(spec.verifier.mode, 'fresh');
  });

  it('shows the image\'s workdir files to a root agent with a writable root, ends every agent process, spares the container\'s own', async () => {
    const request = sandboxRequest(spec, { 'coevolve.rollout': 'harbor-root' });
    const s = await backend.start(request);
    try {
      const r = await s.exec('id -u; head -c 5 /app/service.log; echo; echo planted > /etc/marker && echo root-writable; echo note > /logs/agent/notes.txt; ln -s /etc/passwd /logs/agent/link; printf "\\377\\376" > /logs/artifacts/bin.dat');
      assert.equal(r.exitCode, 0, r.stderr);
      assert.match(r.stdout, /^0\n2024-\nroot-writable\n$/);
      assert.equal(r.via, 'channel', 'a root agent\'s commands go through the command channel');
      // The container's capabilities (CHOWN DAC_OVERRIDE FOWNER KILL SETUID SETGID), as `docker exec --user 0` gave.
      assert.match((await s.exec('grep CapEff /proc/self/status')).stdout, /CapEff:\s+0+eb\n/);
      // A background process of the root agent, detached from the command that started it (in the session shell,
      // where background jobs outlive their command).
      assert.equal((await s.exec('setsid sh -c "sleep 1000" >/dev/null 2>&1 < /dev/null &', { shell: 'session' })).via, 'channel');
      // setsid and sh fork before sleep is exec'd: at load 20 the ps once ran first (1, not 2). Wait up to 10 s for it.
      const sleeps = 'for i in $(seq 100); do [ "$(ps -o comm | grep -c "^sleep")" -ge 2 ] && break; sleep 0.1; done; ps -o comm | grep -c "^sleep"';
      assert.match((await s.exec(sleeps, { as: 'verifier' })).stdout, /^2\n/);
      await s.endAgentProcesses();
      assert.equal((await s.exec('ps -o comm | grep -c "^sleep"', { as: 'verifier' })).stdout.trim(), '1', 'only the container\'s own keep-alive sleep is left');
      assert.equal((await s.exec('echo still usable')).stdout, 'still usable\n');
      const logs = await s.collectLogs!();
      assert.deepEqual(logs.files.map((f) => [f.path, f.encoding, f.content]), [['agent/notes.txt', 'utf8', 'note\n'], ['artifacts/bin.dat', 'base64', '//4=']].sort());
      assert.deepEqual(logs.dropped, [{ path: 'agent/link', reason: 'symlink entry (only regular files are collected)' }]);
    } finally {
      await s.stop();
    }
  });

  it('a root agent that kills every process, its command channel\'s supervisors too, fails its own rollout (not the host)', async () => {
    const s = await backend.start(sandboxRequest(spec, { 'coevolve.rollout': 'harbor-kill' }));
    try {
      assert.equal((await s.exec('echo up')).via, 'channel');
      await s.exec('kill -9 -1').catch(() => undefined);
      await assert.rejects(s.exec('true'), (err: Error) => err instanceof SandboxFaultError && !(err instanceof SandboxHostLostError));
    } finally {
      await s.stop();
    }
  });

  it('gives the fresh verifier only the agent\'s copy: a file the agent deleted from the image\'s workdir does not come back', async () => {
    const env = withVerifier('#!/bin/bash\nmkdir -p /logs/verifier\nif [[ -e /app/service.log ]]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n');
    const request = sandboxRequest(env, { 'coevolve.rollout': 'harbor-delete' });
    const agent = await backend.start(request);
    let box = agent;
    try {
      await agent.exec('rm /app/service.log');
      const v = await verify(agent, env, { backend, request, onSandbox: (b) => (box = b) });
      box = v.sandbox;
      assert.equal(v.outcome.reward, 0, v.outcome.stdout + v.outcome.stderr);
      assert.deepEqual(verificationRecord(v, env), { mode: 'fresh', dropped: [], droppedCount: 0, agentUser: 'root' });
    } finally {
      await agent.stop();
      await box.stop();
    }
  });

  it('runs test.sh by its interpreter line (bash syntax) with TEST_DIR, and reads Harbor\'s reward rule', async () => {
    const cases: [string, number, RegExp?][] = [
      // bash-only syntax, TEST_DIR and $0 as Harbor has them; exit 1 with a reward file still earns the file's value.
      ['#!/bin/bash\nmkdir -p /logs/verifier\n[[ "$TEST_DIR" == /tests && "$0" == /tests/test.sh ]] && echo 1 > /logs/verifier/reward.txt\nexit 1\n', 1],
      // exit 0 without a reward file: no reward (Harbor's rule), said in the note.
      ['#!/bin/bash\necho "forgot the reward"\n', 0, /requires one/],
      // a partial reward is kept.
      ['#!/usr/bin/env bash\nmkdir -p /logs/verifier; echo 0.25 > /logs/verifier/reward.txt\n', 0.25],
    ];
    for (const [script, reward, note] of cases) {
      const env = withVerifier(script, bashSpec);
      const request = sandboxRequest(env, { 'coevolve.rollout': 'harbor-rule' });
      const agent = await backend.start(request);
      let box = agent;
      try {
        const v = await verify(agent, env, { backend, request, onSandbox: (b) => (box = b) });
        box = v.sandbox;
        assert.equal(v.outcome.reward, reward, `${script}\n${v.outcome.stdout}${v.outcome.stderr}${v.outcome.note ?? ''}`);
        if (note) assert.match(v.outcome.note ?? '', note);
      } finally {
        await agent.stop();
        await box.stop();
      }
    }
  });

  it('ends the agent at the task\'s own agent timeout, then verifies what it left and keeps its /logs/agent', async () => {
    const env = environmentSpecSchema.parse({ ...spec, sandbox: { ...spec.sandbox, limits: { ...spec.sandbox.limits, agentTimeoutSec: 3, commandTimeoutSec: 60 } } });
    const server = await startModelServer();
    try {
      const r = await playHack(server, backend, env, { name: 'slow', kind: 'control', commands: ['echo started > /logs/agent/progress.txt', 'sleep 30', 'echo 3 > /app/errors.txt'] }, { labels: testLabels });
      assert.equal(r.status, 'truncated');
      assert.equal(r.truncationReason, 'agent_timeout', "the task's own timeout, told apart from the run's wall clock");
      assert.equal(r.verifier?.reward, 0, 'the verifier judged the work left at the timeout (the answer was never written)');
      assert.deepEqual(r.logs?.files.map((f) => [f.path, f.content]), [['agent/progress.txt', 'started\n']]);
    } finally {
      await server.close();
    }
  });
});
