// Where one docker rollout's sandbox time goes: the rollout's phases (start, agent commands, verification, stop)
// and every Docker API call inside them, timed at dockerode's modem. Printed by bench/run so that what still
// costs per rollout is measured, not guessed.
import Docker from 'dockerode';
import { createRng } from '../../src/core/ports/rng.js';
import type { SandboxBackend } from '../../src/core/ports/sandbox.js';
import { sandboxRequest } from '../../src/core/rollout/engine.js';
import { verify } from '../../src/core/rollout/verification.js';
import { builtinFamilies } from '../../src/builtin/families/registry.js';
import { DockerBackend } from '../../src/sandbox/docker/dockerBackend.js';

export interface PhaseProfile {
  perRolloutMs: number;
  phases: { name: string; ms: number; calls: number }[];
  api: { name: string; ms: number; calls: number }[];
}

type Dial = (opts: { method?: string; path?: string }, cb: (err: unknown, data: unknown) => void) => unknown;

/** A client whose every API call is timed under the phase that made it. */
function timedDocker(calls: { name: string; ms: number }[], phaseOf: () => string): Docker {
  const docker = new Docker();
  const modem = docker.modem as unknown as { dial: Dial };
  const dial = modem.dial.bind(modem);
  modem.dial = (opts, cb) => {
    const t = performance.now();
    const phase = phaseOf();
    const path = String(opts.path ?? '').split('?')[0]!.replace(/coevolve-[0-9a-f-]+|[0-9a-f]{12,}/g, 'ID');
    return dial(opts, (err, data) => {
      calls.push({ name: `${phase}: ${opts.method ?? ''} ${path}`, ms: performance.now() - t });
      cb(err, data);
    });
  };
  return docker;
}

/**
 * `samples` oracle rollouts of one built-in task, one after another: start, ten agent commands, the oracle,
 * verification by the trust rule (fresh sandbox by default), stop. A warm-up rollout first is not counted.
 * `wrap` puts a pool in front of the backend (what a run uses).
 */
export async function dockerPhases(samples: number, labels: Record<string, string>, wrap: (b: DockerBackend) => SandboxBackend = (b) => b): Promise<PhaseProfile> {
  let phase = 'warm-up';
  const calls: { name: string; ms: number }[] = [];
  const backend = wrap(new DockerBackend({ docker: timedDocker(calls, () => phase), labels }));
  const env = builtinFamilies[0]!.generate({ level: 2 }, createRng('bench/phases'));
  const phases = new Map<string, { ms: number; calls: number }>();
  const timed = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    phase = name;
    const t = performance.now();
    try {
      return await work();
    } finally {
      const p = phases.get(name) ?? { ms: 0, calls: 0 };
      p.ms += performance.now() - t;
      p.calls++;
      phases.set(name, p);
    }
  };
  const one = async (): Promise<void> => {
    const request = sandboxRequest(env, labels);
    let box = await timed('start', () => backend.start(request));
    for (let i = 0; i < 10; i++) await timed('agent command', () => box.exec('ls -la; head -3 *.log 2>/dev/null', { cwd: env.sandbox.workdir }));
    await timed('oracle', () => box.exec(env.oracle.script, { as: 'setup', cwd: env.sandbox.workdir }));
    const r = await timed('verify', () => verify(box, env, { backend, request, onSandbox: (b) => (box = b) }));
    await timed('stop', () => r.sandbox.stop());
    if (r.outcome.reward !== 1) throw new Error(`the oracle did not pass: ${r.outcome.stdout}`);
  };
  try {
    await one();
    phases.clear();
    calls.length = 0;
    const t = performance.now();
    for (let i = 0; i < samples; i++) await one();
    const perRolloutMs = (performance.now() - t) / samples;
    const api = new Map<string, { ms: number; calls: number }>();
    for (const c of calls) {
      const a = api.get(c.name) ?? { ms: 0, calls: 0 };
      a.ms += c.ms;
      a.calls++;
      api.set(c.name, a);
    }
    const per = (m: Map<string, { ms: number; calls: number }>): PhaseProfile['phases'] =>
      [...m.entries()].map(([name, v]) => ({ name, ms: v.ms / samples, calls: v.calls / samples })).sort((a, b) => b.ms - a.ms);
    return { perRolloutMs, phases: per(phases), api: per(api) };
  } finally {
    await backend.dispose();
  }
}
