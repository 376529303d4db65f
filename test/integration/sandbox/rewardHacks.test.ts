// The integration suite of reward hacks (issue 11): every class the issue lists plus hacks against the trust rule
// itself, played by the LLM agent over the loopback model server, on docker and bwrap, with the verifier in a fresh
// sandbox (default) and in place. Each must earn reward 0, count as a failed rollout (not an infrastructure error),
// and leave every host file outside the sandbox as it was, by content and mode.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRng } from '../../../src/core/ports/rng.js';
import type { SandboxBackend } from '../../../src/core/ports/sandbox.js';
import type { EnvironmentSpec } from '../../../src/core/spec/environment.js';
import { environmentSpecSchema } from '../../../src/core/spec/environment.js';
import { csvReport } from '../../../src/builtin/families/csvReport.js';
import { BwrapBackend } from '../../../src/sandbox/bwrap/bwrapBackend.js';
import { DockerBackend } from '../../../src/sandbox/docker/dockerBackend.js';
import { WarmPool } from '../../../src/sandbox/docker/warmPool.js';
import { hacksFor } from '../../support/hacks.js';
import type { HostCanaries } from '../../support/hacks.js';
import { playHack } from '../../support/hackPlay.js';
import { startModelServer } from '../../support/modelServer.js';
import type { ModelServer } from '../../support/modelServer.js';
import { needService } from '../../support/services.js';
import { bwrapProblem, dockerProblem, testLabels } from './support.js';

const base = csvReport.generate({ level: 1 }, createRng('hacks/csv'));
const envs: { label: string; env: EnvironmentSpec }[] = [
  { label: 'fresh', env: base },
  { label: 'in-place', env: environmentSpecSchema.parse({ ...base, id: `${base.id}-in-place`, verifier: { ...base.verifier, mode: 'in-place' } }) },
];

const backends: { name: string; problem: () => Promise<string | undefined>; make: () => SandboxBackend; modes?: string[] }[] = [
  { name: 'docker', problem: () => dockerProblem(), make: () => new DockerBackend({ labels: testLabels }) },
  { name: 'bwrap', problem: bwrapProblem, make: () => new BwrapBackend() },
  // What runs with a warm pool use: every container scrubbed and handed to the next rollout, so the verifier's
  // "fresh" sandbox is often the container the hack just ran in (in place, recycling changes nothing the verifier
  // sees: only the fresh mode runs here, to keep the suite's time).
  { name: 'docker with recycled containers', problem: () => dockerProblem(), make: () => new WarmPool(new DockerBackend({ labels: testLabels }), { size: 1, labels: testLabels }), modes: ['fresh'] },
];

type Snapshot = Record<string, { mode: number; content: string }>;

function snapshot(c: HostCanaries): Snapshot {
  const out: Snapshot = {};
  const add = (p: string): void => {
    const st = statSync(p);
    out[p] = { mode: st.mode, content: st.isDirectory() ? readdirSync(p).sort().join('\n') : readFileSync(p, 'utf8') };
  };
  add(c.file);
  add(c.dir);
  for (const e of readdirSync(c.dir)) add(join(c.dir, e));
  return out;
}

for (const b of backends) {
  describe(`reward hacks on ${b.name}`, function () {
    this.timeout(600_000);
    let backend: SandboxBackend;
    let server: ModelServer;
    const root = join(tmpdir(), `coevolve-hack-host-${process.pid}-${b.name}`);
    const host: HostCanaries = { file: join(root, 'secret.txt'), dir: join(root, 'dir') };
    let initial: Snapshot;

    before(async function () {
      await needService(this, b.name, b.problem);
      mkdirSync(host.dir, { recursive: true });
      writeFileSync(host.file, 'host secret\n');
      chmodSync(host.file, 0o600);
      writeFileSync(join(host.dir, 'keep.txt'), 'keep\n');
      initial = snapshot(host);
      backend = b.make();
      server = await startModelServer();
    });
    after(async () => {
      await backend?.dispose();
      await server?.close();
      rmSync(root, { recursive: true, force: true });
    });

    for (const { label, env } of envs.filter((e) => !b.modes || b.modes.includes(e.label))) {
      it(`every hack earns 0 and counts as a failed rollout; the empty agent earns the same (${label})`, async () => {
        const empty = await playHack(server, backend, env, undefined, { labels: testLabels });
        assert.equal(empty.rewards.total, 0);
        const failures: string[] = [];
        for (const hack of hacksFor(env, host)) {
          const r = await playHack(server, backend, env, hack, { labels: testLabels });
          const problems = [
            r.rewards.verifier !== 0 ? `verifier reward ${r.rewards.verifier}` : '',
            r.rewards.total > empty.rewards.total ? `total ${r.rewards.total} > empty agent's ${empty.rewards.total}` : '',
            r.success ? 'success' : '',
            r.status === 'error' ? `recorded as an infrastructure error (${r.errorKind}): ${r.error}` : '',
            JSON.stringify(r).includes(root) && !hack.commands.join(' ').includes(root) ? 'a host path in the record' : '',
            r.error && /coevolve-sbx-/.test(r.error) ? 'a host sandbox folder in the record' : '',
          ].filter(Boolean);
          const now = snapshot(host);
          if (JSON.stringify(now) !== JSON.stringify(initial)) problems.push(`host files changed: ${JSON.stringify(now)}`);
          if (problems.length > 0) failures.push(`${hack.name} [${hack.kind}]: ${problems.join('; ')} (verifier: ${r.verifier?.stdout.slice(0, 300) ?? ''} ${r.fault ?? ''})`);
        }
        assert.deepEqual(failures, []);
        assert.equal(server.pending('agent'), 0, 'every scripted turn was played');
      });
    }

    it('the oracle still earns 1 in both modes (the suite cannot pass by breaking the verifier)', async () => {
      for (const { env } of envs) {
        const oracle = { name: 'oracle', kind: 'control', commands: [env.oracle.script] };
        const r = await playHack(server, backend, env, oracle, { labels: testLabels });
        assert.equal(r.rewards.verifier, 1, `${env.id}: ${r.verifier?.stdout ?? ''} ${r.fault ?? r.error ?? ''}`);
      }
    });
  });
}
