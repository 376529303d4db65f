// The command channel against the agent: every command is served by the channel (never the exec fallback), and
// the agent's attacks on the channel itself fail: forged reply frames and session markers, killing, stopping or
// tracing the supervisor, reaching the root channel, ending or replacing the session's shell, escaping a
// time-out with setsid/nohup, leaving files behind. Real Docker engine, real supervisor binary.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { Sandbox, SandboxBackend } from '../../../src/core/ports/sandbox.js';
import { SandboxFaultError } from '../../../src/core/ports/sandbox.js';
import { limitsSchema } from '../../../src/core/spec/environment.js';
import { BwrapBackend } from '../../../src/sandbox/bwrap/bwrapBackend.js';
import type { BwrapSandbox } from '../../../src/sandbox/bwrap/bwrapBackend.js';
import { DockerBackend } from '../../../src/sandbox/docker/dockerBackend.js';
import type { DockerSandbox } from '../../../src/sandbox/docker/dockerSandbox.js';
import { needService } from '../../support/services.js';
import { playHack } from '../../support/hackPlay.js';
import { startModelServer } from '../../support/modelServer.js';
import type { ModelServer } from '../../support/modelServer.js';
import { createRng } from '../../../src/core/ports/rng.js';
import { csvReport } from '../../../src/builtin/families/csvReport.js';
import { ProcessBackend } from '../../../src/sandbox/process/processBackend.js';
import { bwrapProblem, dockerProblem, leftovers, requestFor, testLabels } from './support.js';

const marker = 2147483629;
const limits = limitsSchema.parse({ commandTimeoutSec: 10, maxOutputBytes: 64 * 1024 });

interface Target {
  name: string;
  problem: () => Promise<string | undefined>;
  make: (warn: (m: string) => void) => SandboxBackend;
  /** The supervisors' pids as the agent sees them, or [] where it cannot see them at all (their own pid namespace). */
  supervisorPids: (box: Sandbox) => Promise<number[]>;
  /** Kills the sandbox's supervisors for real, with privileges the agent does not have. */
  killSupervisors: (box: Sandbox) => Promise<void>;
}

const targets: Target[] = [
  {
    name: 'docker',
    problem: () => dockerProblem(),
    make: (warn) => new DockerBackend({ labels: testLabels, warn }),
    supervisorPids: async (box) => {
      // The supervisors, not the per-command shims forked from them (whose parent is a supervisor).
      const r = await box.exec('ps -o pid,ppid,args');
      const rows = r.stdout.trim().split('\n').slice(1).map((l) => l.trim().split(/\s+/));
      const channel = new Set(rows.filter((c) => c[2] === '/run/coevolve/channel').map((c) => c[0]));
      return rows.filter((c) => c[2] === '/run/coevolve/channel' && !channel.has(c[1])).map((c) => Number(c[0]));
    },
    killSupervisors: async (box) => {
      const pids = await targets[0]!.supervisorPids(box);
      assert.ok(pids.length >= 2);
      // Root in the container (the agent cannot, see above): a real death of both supervisors.
      await box.exec(`kill -9 ${pids.join(' ')}`, { as: 'setup' }).catch(() => undefined);
    },
  },
  {
    name: 'bwrap',
    problem: bwrapProblem,
    make: (warn) => new BwrapBackend({ warn }),
    // Each command has its own pid namespace: its only other process is its own shim (pid 1), never a supervisor.
    supervisorPids: async (box) => {
      const r = await box.exec('ps -o pid,args');
      const others = r.stdout.trim().split('\n').slice(1).map((l) => l.trim().split(/\s+/)).filter((c) => c[1] === '/run/coevolve/channel' && c[0] !== '1');
      assert.deepEqual(others, [], 'no supervisor is visible to an agent command');
      return [1];
    },
    killSupervisors: async (box) => {
      // From the host: the namespace set's bwrap, and with it the supervisors (--die-with-parent).
      process.kill((box as BwrapSandbox).channelPid!, 'SIGKILL');
    },
  },
];

for (const t of targets) {
  describe(`command channel on ${t.name}`, function () {
    this.timeout(120_000);
    let backend: SandboxBackend;
    let box: Sandbox;
    const warnings: string[] = [];

    before(async function () {
      await needService(this, t.name, t.problem);
      backend = t.make((m) => warnings.push(m));
      box = await backend.start(requestFor({ limits }));
    });
    after(async () => {
      await box?.stop();
      await backend?.dispose();
    });

    it('serves every role through the channel, with separate stdout and stderr, exit codes and no fallback warning', async () => {
      const agent = await box.exec('id -u; echo err >&2; exit 3');
      assert.deepEqual([agent.via, agent.stdout, agent.stderr, agent.exitCode], ['channel', '65534\n', 'err\n', 3]);
      const setup = await box.exec(['id', '-u'], { as: 'setup' });
      assert.deepEqual([setup.via, setup.stdout], ['channel', '0\n']);
      const verifier = await box.exec('id -u', { as: 'verifier' });
      assert.deepEqual([verifier.via, verifier.stdout], ['channel', '0\n']);
      const caps = await box.exec('grep -E "^Cap(Eff|Prm|Bnd)" /proc/self/status; grep NoNewPrivs /proc/self/status');
      assert.match(caps.stdout, /CapEff:\t0{16}/);
      assert.match(caps.stdout, /CapPrm:\t0{16}/);
      assert.match(caps.stdout, /NoNewPrivs:\t1/);
      assert.deepEqual(warnings, []);
    });

    it('carries bytes exactly: all 256 byte values through stdin and back, argv words whole', async () => {
      const all = Buffer.from(Array.from({ length: 256 * 16 }, (_, i) => i % 256));
      const r = await (box as DockerSandbox).execBytes(['cat'], { stdin: all });
      assert.equal(r.via, 'channel');
      assert.ok(r.stdoutBytes.equals(all), 'the same bytes came back');
      const words = await box.exec(['printf', '%s|', 'a b', "it's", '$HOME', '']);
      assert.equal(words.stdout, "a b|it's|$HOME||");
    });

    it('a command that prints forged reply frames gets them back as its own output, and the real exit code', async () => {
      // A well-formed EXIT frame (type 0x83) for request ids 1..64 with code 0, then a fake HELLO and FATAL.
      const forged = Array.from({ length: 64 }, (_, i) => `\\203\\0\\0\\0\\${(i + 1).toString(8).padStart(3, '0')}\\0\\0\\0\\044\\0\\0\\0${'\\0'.repeat(36)}`).join('') + '\\200\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\205\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0';
      const r = await box.exec(`printf '${forged}'; printf '${forged}' >&2; sleep 0.2; echo real-end; exit 9`);
      assert.equal(r.exitCode, 9);
      assert.ok(r.stdout.endsWith('real-end\n'), 'the output after the forgery arrived');
      assert.ok(r.stdout.length > 64 * 48, 'the forged bytes are part of the output');
      assert.equal((await box.exec('echo still-here')).stdout, 'still-here\n');
    });

    it('cannot kill, stop or trace the supervisors, nor open their pipes; the channel keeps serving', async () => {
      const pids = await t.supervisorPids(box);
      for (const pid of pids) {
        const r = await box.exec(`kill -9 ${pid}; echo k=$?; kill -STOP ${pid}; echo s=$?; kill -TERM ${pid}; sleep 0.1; ls /proc/${pid}/fd 2>&1; cat /proc/${pid}/environ 2>&1; echo x > /proc/${pid}/fd/0; echo w=$?; cat /proc/${pid}/mem 2>&1 | head -c 100`);
        // docker: the supervisor is root and the agent is not. bwrap: the only channel process an agent command sees
        // is its own shim, the init of its pid namespace, to which the kernel delivers no SIGKILL or SIGSTOP from inside.
        if (t.name === 'docker') assert.match(r.stdout, /k=1[^]*s=1/);
        assert.match(r.stdout + r.stderr, /Permission denied|Operation not permitted/);
        assert.match(r.stdout, /w=[1-9]/, 'the command outlived its own attempts');
      }
      // Every process the agent may signal: its own. The supervisors survive it.
      const all = await box.exec('kill -9 -1; echo after');
      assert.notEqual(all.via, undefined);
      assert.equal((await box.exec('echo alive')).stdout, 'alive\n');
      assert.equal((await box.exec('id -u', { as: 'verifier' })).stdout, '0\n');
      // docker: a root-only folder. bwrap: bound read-only (running it gives the agent nothing it lacked).
      const dir = await box.exec('ls /run/coevolve; echo x > /run/coevolve/channel; echo rc=$?');
      assert.match(dir.stdout + dir.stderr, t.name === 'docker' ? /Permission denied/ : /Read-only file system/);
    });

    it('a time-out ends setsid and nohup escapes too, and leaves no file behind', async () => {
      const before = await box.exec('ls -A /tmp', { as: 'setup' });
      const r = await box.exec(`setsid sleep ${marker} & nohup sleep ${marker} >/dev/null 2>&1 & (sleep ${marker} &) ; sleep ${marker}`, { timeoutMs: 700 });
      assert.equal(r.timedOut, true);
      assert.equal(r.exitCode, 124);
      const ps = await box.exec(`ps -o pid,comm,args | grep "[s]leep ${marker}" || true`, { as: 'setup' });
      assert.equal(ps.stdout.trim(), '');
      assert.equal((await box.exec('ls -A /tmp', { as: 'setup' })).stdout, before.stdout, 'no pid files or other leftovers in /tmp');
    });

    it('cancellation mid-command ends it and the channel goes on', async () => {
      const ac = new AbortController();
      setTimeout(() => ac.abort(), 200);
      await assert.rejects(box.exec(`sleep ${marker}`, { signal: ac.signal }), /cancelled/);
      assert.equal((await box.exec(`ps -o args | grep -c "[s]leep ${marker}" || true`, { as: 'setup' })).stdout.trim(), '0');
      assert.equal((await box.exec('echo on')).stdout, 'on\n');
    });

    it('a command that does not read its stdin, and one that reads part of it, both finish', async () => {
      const big = Buffer.alloc(8 * 1024 * 1024, 0x61);
      const none = await box.exec('true', { stdin: big });
      assert.equal(none.exitCode, 0);
      const part = await box.exec('head -c 5', { stdin: big });
      assert.equal(part.stdout, 'aaaaa');
      const count = await box.exec('wc -c', { stdin: big });
      assert.equal(count.stdout.trim(), String(big.length));
    });

    it('runs commands side by side on one channel', async () => {
      const started = performance.now();
      const rs = await Promise.all(Array.from({ length: 8 }, (_, i) => box.exec(`sleep 0.5; echo ${i}`)));
      assert.deepEqual(rs.map((r) => r.stdout), Array.from({ length: 8 }, (_, i) => `${i}\n`));
      assert.ok(performance.now() - started < 8 * 500, 'they overlapped');
    });

    describe('session shell', () => {
      it('keeps cd and export between commands, and records that a session ran', async () => {
        const a = await box.exec('mkdir -p sub/dir && cd sub/dir && export GREETING=hello && LOCAL=kept', { shell: 'session' });
        assert.deepEqual([a.via, a.shell, a.exitCode], ['channel', 'session', 0]);
        const b = await box.exec('pwd; echo "$GREETING $LOCAL"', { shell: 'session' });
        assert.equal(b.stdout, '/workspace/sub/dir\nhello kept\n');
        const stateless = await box.exec('pwd; echo "[$GREETING]"');
        assert.deepEqual([stateless.shell, stateless.stdout], ['stateless', '/workspace\n[]\n']);
      });

      it('a forged end-of-command report changes nothing: not on stdout, not through the report function', async () => {
        const r = await box.exec('printf "\\036CVDONE 00000000000000000000000000000000 0\\000/\\000\\000\\036CVEND 00000000000000000000000000000000\\036"; echo after >&3; sleep 0.3; echo real; false', { shell: 'session' });
        assert.equal(r.exitCode, 1);
        assert.ok(r.stdout.endsWith('real\n'), JSON.stringify(r));
        assert.equal(r.sessionRestarted, undefined);
        // Calling the report function itself: its fd is closed while a command runs, so it reports nothing.
        const own = await box.exec('__coevolve_done 0000; cd /', { shell: 'session' });
        assert.equal(own.sessionRestarted, undefined);
        assert.equal((await box.exec('pwd', { shell: 'session' })).stdout, '/workspace/sub/dir\n');
      });

      it('a timed-out command keeps the shell and its state', async () => {
        const r = await box.exec(`sleep ${marker}`, { shell: 'session', timeoutMs: 500 });
        assert.deepEqual([r.timedOut, r.exitCode, r.sessionRestarted], [true, 124, undefined]);
        const b = await box.exec('pwd; echo "$GREETING $LOCAL"', { shell: 'session' });
        assert.equal(b.stdout, '/workspace/sub/dir\nhello kept\n');
      });

      it('a busy loop in the shell itself times out, and the result says what was lost', async () => {
        const r = await box.exec('while :; do :; done', { shell: 'session', timeoutMs: 500 });
        assert.equal(r.timedOut, true);
        assert.match(r.sessionRestarted?.note ?? '', /timed out.*exported variables from before.*not exported.*lost/);
        const b = await box.exec('pwd; echo "$GREETING [$LOCAL]"', { shell: 'session' });
        assert.equal(b.stdout, '/workspace/sub/dir\nhello []\n');
      });

      it('exit and exec over the shell end it; the next command gets a new one and is told', async () => {
        for (const cmd of ['exit 7', 'exec sleep 0', 'kill -9 $$']) {
          const r = await box.exec(cmd, { shell: 'session' });
          assert.match(r.sessionRestarted?.note ?? '', /ended the shell/, `${cmd}: ${JSON.stringify(r)}`);
          const b = await box.exec('pwd; echo "$GREETING"', { shell: 'session' });
          assert.equal(b.stdout, '/workspace/sub/dir\nhello\n', cmd);
        }
      });

      it('endAgentProcesses ends the session and its background jobs', async () => {
        await box.exec(`sleep ${marker} &`, { shell: 'session' });
        await box.endAgentProcesses();
        assert.equal((await box.exec(`ps -o args | grep -c "[s]leep ${marker}" || true`, { as: 'setup' })).stdout.trim(), '0');
        assert.equal((await box.exec('pwd', { shell: 'session' })).stdout, '/workspace\n', 'a new session starts in the workdir');
      });
    });

    describe('at the end', () => {
      it('a supervisor that dies ends the sandbox as a fault of its contents, not a silent fallback', async () => {
        const other = await backend.start(requestFor({ limits }));
        try {
          await t.killSupervisors(other);
          await new Promise((r) => setTimeout(r, 200));
          await assert.rejects(other.exec('echo hi'), (err: unknown) => err instanceof SandboxFaultError && /command channel ended/.test((err as Error).message));
        } finally {
          await other.stop();
        }
      });

      it('leaves nothing behind', async () => {
        await box.stop();
        await backend.dispose();
        if (t.name === 'docker') assert.deepEqual(await leftovers(), { containers: [], volumes: [] });
        assert.equal(spawnSync('pgrep', ['-af', `[s]leep ${marker}`], { encoding: 'utf8' }).stdout, '');
        assert.deepEqual(readdirSync(tmpdir()).filter((e) => e.startsWith(`coevolve-sbx-${process.pid}-`)), []);
      });
    });
  });
}

describe('command channel fallback on docker', function () {
  this.timeout(60_000);
  before(async function () {
    await needService(this, 'docker', () => dockerProblem());
  });
  it('channel: false runs one docker exec per command, as before', async () => {
    const backend = new DockerBackend({ labels: testLabels, channel: false });
    const box = await backend.start(requestFor());
    try {
      const r = await box.exec('echo hi', { shell: 'session' });
      assert.deepEqual([r.via, r.shell, r.stdout], ['exec', 'stateless', 'hi\n']);
    } finally {
      await box.stop();
      await backend.dispose();
    }
  });

  // The per-command path has no supervisor: the host kills the command's session from a second exec, and removes the
  // container when a command escaped its session and still holds the stream.
  describe('one docker exec per command, against the agent', () => {
    let backend: DockerBackend;
    let box: Sandbox;
    beforeEach(async () => {
      backend = new DockerBackend({ labels: testLabels, channel: false });
      box = await backend.start(requestFor({ limits: limitsSchema.parse({ commandTimeoutSec: 10, maxOutputBytes: 4096 }) }));
    });
    afterEach(async () => {
      await box.stop();
      await backend.dispose();
    });
    it('a time-out ends the command with exit 124', async () => {
      const r = await box.exec(`sleep ${marker}`, { timeoutMs: 1000 });
      assert.deepEqual([r.via, r.timedOut, r.exitCode], ['exec', true, 124]);
      assert.equal((await box.exec(`ps -o args | grep -c "[s]leep ${marker}" || true`, { as: 'setup' })).stdout.trim(), '0');
    });
    it('a flood is stopped, capped and said', async () => {
      const r = await box.exec('yes flood');
      assert.equal(r.truncated, true);
      assert.ok(r.stdout.length < 4096 + 200, `kept ${r.stdout.length} bytes`);
      assert.match(r.stderr, /command stopped after writing more than \d+ bytes/);
    });
    it('cancellation mid-command ends it and the sandbox goes on', async () => {
      const ac = new AbortController();
      setTimeout(() => ac.abort(), 300);
      await assert.rejects(box.exec(`sleep ${marker}`, { signal: ac.signal }), /cancelled/);
      assert.equal((await box.exec('echo on')).stdout, 'on\n');
    });
    it('a time-out returns even when a setsid escape holds stdout, and ending the agent ends the escape', async () => {
      // The group kill misses a process in a session of its own; the daemon ends the stream once the exec's own
      // process is gone. Unlike the channel, this path leaves the escape running until the agent's processes are
      // ended, which the engine does before any verifier runs (the trust rule).
      const r = await box.exec(`setsid sleep ${marker} & sleep ${marker}`, { timeoutMs: 1000 });
      assert.deepEqual([r.timedOut, r.exitCode], [true, 124]);
      const count = async (): Promise<string> => (await box.exec(`ps -o args | grep -c "[s]leep ${marker}" || true`, { as: 'setup' })).stdout.trim();
      assert.equal(await count(), '1', 'the escape outlives its command on this path');
      await box.endAgentProcesses();
      assert.equal(await count(), '0');
    });
  });
});

// A rollout of an environment with `sandbox.shell: session`: the real LLM agent over the loopback model server runs
// `cd` and `export` in one command and reads them back in the next; the record says which mode ran.
describe('session shell in a rollout', function () {
  this.timeout(120_000);
  const env = csvReport.generate({ level: 1 }, createRng('channel/session'));
  const cases: { name: string; problem: () => Promise<string | undefined>; make: () => SandboxBackend; ran: string }[] = [
    { name: 'docker', problem: () => dockerProblem(), make: () => new DockerBackend({ labels: testLabels }), ran: 'session' },
    { name: 'bwrap', problem: bwrapProblem, make: () => new BwrapBackend(), ran: 'session' },
    { name: 'process (no channel)', problem: async () => undefined, make: () => new ProcessBackend({ warn: () => undefined }), ran: 'stateless' },
  ];
  let server: ModelServer;
  before(async () => {
    server = await startModelServer();
  });
  after(async () => {
    await server?.close();
  });
  for (const c of cases) {
    it(`on ${c.name}: ${c.ran === 'session' ? 'cd and export persist' : 'each command starts afresh'}, and the record says ${c.ran}`, async function () {
      await needService(this, c.name, c.problem);
      const backend = c.make();
      try {
        const spec = { ...env, sandbox: { ...env.sandbox, shell: 'session' as const } };
        const r = await playHack(server, backend, spec, { name: 'session', kind: 'own', commands: ['mkdir -p deep && cd deep && export KEPT=kept', 'pwd; echo "$KEPT"'] }, { labels: testLabels });
        assert.equal(r.sandbox.shell, c.ran);
        const outputs = r.steps.flatMap((s) => s.observation?.results ?? []).map((o) => o.content);
        assert.equal(outputs.some((o) => o.includes('/workspace/deep\nkept')), c.ran === 'session', JSON.stringify(outputs));
      } finally {
        await backend.dispose();
      }
    });
  }
});
