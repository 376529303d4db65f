// Where one play's CPU goes, phase by phase (bench/run/run.ts --play-cost [RUN_DIR] [--reps N]): generation 0 of a
// finished run (by default a fresh 1-generation demo run on bwrap) replayed one play at a time, each play's agent
// commands taken from its rollout record. Phases: the agent's sandbox start (files and setup), the agent's commands,
// verification by the trust rule (the core's own `verify`: export, a fresh sandbox, import, /tests, the verifier,
// the reward file), the verifier's script once more in the verifier's sandbox (its own cost alone), and the stops;
// first the floor under them: a bare sandbox start and stop, and a bare `true` through the channel.
// CPU is read system-wide from /proc/stat, so the machine should be otherwise idle; the load is printed.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sandboxRequest } from '../../src/core/rollout/engine.js';
import { verifierEnvironment, verifierLaunch, verify } from '../../src/core/rollout/verification.js';
import type { RolloutRecord } from '../../src/core/rollout/trajectory.js';
import type { EnvironmentSpec } from '../../src/core/spec/environment.js';
import { BwrapBackend } from '../../src/sandbox/bwrap/bwrapBackend.js';

export const playPhases = ['start', 'agent', 'verify', 'verifierScript', 'stop'] as const;
export type PlayPhase = (typeof playPhases)[number];

export interface PlayCost {
  /** The floor under the phases: one bare sandbox start and stop, and one `true` through its channel (CPU ms). */
  bareSandboxMs: number;
  bareCommandMs: number;
  plays: number;
  commandsPerPlay: number;
  /** CPU milliseconds per play, per phase (verify includes verifierScript's first run; the second is extra). */
  msPerPlay: Record<PlayPhase, number>;
  perFamily: Record<string, { plays: number; msPerPlay: Record<PlayPhase, number> }>;
}

/** Busy CPU ticks of the whole machine (user, nice, system, irq, softirq). */
function cpuTicks(): number {
  const f = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.split(/\s+/).slice(1).map(Number);
  return f[0]! + f[1]! + f[2]! + f[5]! + f[6]!;
}
const msPerTick = 1000 / 100; // USER_HZ

function commandsOf(record: RolloutRecord): string[] {
  return record.steps.flatMap((s) => (s.tool_calls ?? []).filter((t) => t.function_name === 'run_command').map((t) => String((t.arguments as { command?: unknown }).command ?? '')));
}

/** CPU ms of one bare sandbox start and stop, and of one `true` through the channel, each the mean of n. */
async function floors(backend: BwrapBackend, request: ReturnType<typeof sandboxRequest>, n: number): Promise<{ sandbox: number; command: number }> {
  let mark = cpuTicks();
  for (let i = 0; i < n; i++) await (await backend.start(request)).stop();
  const sandbox = ((cpuTicks() - mark) * msPerTick) / n;
  const box = await backend.start(request);
  mark = cpuTicks();
  for (let i = 0; i < n * 4; i++) await box.exec('true');
  const command = ((cpuTicks() - mark) * msPerTick) / (n * 4);
  await box.stop();
  return { sandbox: Math.round(sandbox * 10) / 10, command: Math.round(command * 10) / 10 };
}

export async function playCost(runDir: string, reps = 1): Promise<PlayCost> {
  const dir = join(runDir, 'rollouts', 'g0000');
  const records = readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as RolloutRecord);
  const backend = new BwrapBackend();
  const zero = (): Record<PlayPhase, number> => Object.fromEntries(playPhases.map((p) => [p, 0])) as Record<PlayPhase, number>;
  const total = zero();
  const families: Record<string, { plays: number; ticks: Record<PlayPhase, number> }> = {};
  let plays = 0, commands = 0;
  let floor = { sandbox: 0, command: 0 };
  try {
    const first = JSON.parse(readFileSync(join(runDir, 'environments', `${records[0]!.envId}.json`), 'utf8')) as EnvironmentSpec;
    floor = await floors(backend, { ...sandboxRequest(first, {}), files: [], setup: [] }, 50);
    for (let r = 0; r < reps; r++) {
      for (const record of records) {
        const env = JSON.parse(readFileSync(join(runDir, 'environments', `${record.envId}.json`), 'utf8')) as EnvironmentSpec;
        const agentCommands = commandsOf(record);
        const fam = (families[env.family ?? 'custom'] ??= { plays: 0, ticks: zero() });
        let mark = cpuTicks();
        const lap = (phase: PlayPhase): void => {
          const now = cpuTicks();
          total[phase] += now - mark;
          fam.ticks[phase] += now - mark;
          mark = now;
        };
        const request = sandboxRequest(env, {});
        const box = await backend.start(request);
        lap('start');
        for (const command of agentCommands) await box.exec(command, { timeoutMs: env.sandbox.limits.commandTimeoutSec * 1000, maxOutputBytes: 64 * 1024 });
        lap('agent');
        const v = await verify(box, env, { backend, request });
        lap('verify');
        const launch = verifierLaunch(env);
        await v.sandbox.exec(launch.argv, { as: 'verifier', cwd: env.sandbox.workdir, env: verifierEnvironment(env), stdin: '', timeoutMs: env.verifier.timeoutSec * 1000, maxOutputBytes: 64 * 1024 });
        lap('verifierScript');
        await v.sandbox.stop();
        if (v.sandbox !== box) await box.stop();
        lap('stop');
        plays++;
        fam.plays++;
        commands += agentCommands.length;
      }
    }
  } finally {
    await backend.dispose();
  }
  const perPlay = (ticks: Record<PlayPhase, number>, n: number): Record<PlayPhase, number> => Object.fromEntries(playPhases.map((p) => [p, Math.round((ticks[p] * msPerTick) / n * 10) / 10])) as Record<PlayPhase, number>;
  return {
    bareSandboxMs: floor.sandbox,
    bareCommandMs: floor.command,
    plays,
    commandsPerPlay: Math.round((commands / plays) * 10) / 10,
    msPerPlay: perPlay(total, plays),
    perFamily: Object.fromEntries(Object.entries(families).map(([k, v]) => [k, { plays: v.plays, msPerPlay: perPlay(v.ticks, v.plays) }])),
  };
}
