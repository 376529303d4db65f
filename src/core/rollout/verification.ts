import type { Cancellation } from '../ports/cancellation.js';
import type { CollectedLogs, Sandbox, SandboxBackend, SandboxRequest, TransferReport, VerifierMode } from '../ports/sandbox.js';
import { SandboxFaultError, verifierPaths } from '../ports/sandbox.js';
import type { EnvironmentSpec } from '../spec/environment.js';
import type { VerificationRecord, VerifierOutcome } from './trajectory.js';
import { parseRewardText } from './verifierReward.js';

/** The verifier's environment: nothing the agent set reaches it (the trust rule's I2). */
export function verifierEnvironment(env: EnvironmentSpec): Record<string, string> {
  return {
    PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    HOME: verifierPaths.logs,
    PYTHONNOUSERSITE: '1',
    PYTHONDONTWRITEBYTECODE: '1',
    // The workdir (cwd) never joins sys.path (python -m / -c would put it first); /tests does, for its own helpers.
    PYTHONSAFEPATH: '1',
    PYTHONPATH: verifierPaths.tests,
    LANG: 'C.UTF-8',
    ...env.sandbox.env,
    ...env.verifier.env,
  };
}

/** Raised when the verifier's fresh sandbox cannot be started: nothing the agent did can cause that. */
export class VerifierSandboxStartError extends Error {
  constructor(override readonly cause: unknown) {
    super(`the verifier's sandbox could not be started: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'VerifierSandboxStartError';
  }
}

export interface VerificationResult {
  outcome: VerifierOutcome;
  /** Where the verifier ran; the caller stops it (in place: the agent's own sandbox). */
  sandbox: Sandbox;
  mode: VerifierMode;
  transfer: TransferReport;
  /** What the agent left in /logs/agent and /logs/artifacts, read after its last process ended. */
  logs?: CollectedLogs;
}

export interface VerificationDeps {
  backend: SandboxBackend;
  /** The request the agent's sandbox was started from; a fresh sandbox takes its shape, without files or setup. */
  request: SandboxRequest;
  signal?: Cancellation;
  /** Called with the sandbox the verifier will run in as soon as it exists, so the caller can always stop it. */
  onSandbox?: (sandbox: Sandbox) => void;
  /**
   * Called once the agent's sandbox is stopped (fresh mode), before the verifier's is started: a caller that stops
   * its sandbox when it is done must not stop this one again, whatever happens before `onSandbox`.
   */
  onAgentStopped?: () => void;
}

/**
 * Verification by the trust rule (ARCHITECTURE.md): every agent process ended; by default a fresh sandbox with
 * only the agent's workspace, copied through the sanitising transfer; /tests written only now; the verifier run
 * with a fixed environment; the reward read from /logs/verifier alone.
 */
export async function verify(agent: Sandbox, env: EnvironmentSpec, deps: VerificationDeps): Promise<VerificationResult> {
  const signal = deps.signal ? { signal: deps.signal } : {};
  const mode = env.verifier.mode;
  await agent.endAgentProcesses(signal);
  const logs = await agent.collectLogs?.(signal);
  let box = agent;
  let transfer: TransferReport;
  if (mode === 'in-place') {
    transfer = await box.sweepWorkspace(signal);
  } else {
    const archive = await agent.exportWorkspace(signal);
    await agent.stop();
    deps.onAgentStopped?.();
    try {
      // No files, no setup, and not the image's workdir files either: only the agent's copy, so nothing it deleted returns.
      box = await deps.backend.start({ ...deps.request, files: [], setup: [], imageWorkdir: false }, signal);
    } catch (err) {
      throw err instanceof Error && err.name === 'SandboxHostLostError' ? err : new VerifierSandboxStartError(err);
    }
    deps.onSandbox?.(box);
    await box.importWorkspace(archive, signal);
    transfer = archive.report;
  }
  await box.resetVerifierDirs(signal);
  const launch = verifierLaunch(env);
  await box.putFiles(launch.file ? [...env.verifier.files, launch.file] : env.verifier.files, { ...signal, under: 'tests' });
  const run = await box.exec(launch.argv, {
    as: 'verifier',
    cwd: env.sandbox.workdir,
    env: verifierEnvironment(env),
    stdin: '',
    timeoutMs: env.verifier.timeoutSec * 1000,
    maxOutputBytes: 64 * 1024,
    ...signal,
  });
  const file = await readRewardFile(box, deps.signal);
  const outcome = rewardOf(run, file, env.verifier.partialCredit, env.verifier.requireRewardFile === true);
  return { outcome, sandbox: box, mode, transfer, ...(logs ? { logs } : {}) };
}

/** Root agents verified in place are as trustworthy as Harbor's own model, no more: the record says so. */
export const rootInPlaceTrustNote = "the agent ran as root in a writable container and the verifier ran in place, so the agent could have replaced the image's own tools: this reward is only as trustworthy as Harbor's model";

/** What the rollout record keeps of a verification. */
export function verificationRecord(v: VerificationResult, env: EnvironmentSpec): VerificationRecord {
  const record: VerificationRecord = { mode: v.mode, dropped: v.transfer.dropped, droppedCount: v.transfer.droppedCount };
  if (env.sandbox.agentUser === 'root') {
    record.agentUser = 'root';
    if (v.mode === 'in-place') record.trustNote = rootInPlaceTrustNote;
  }
  return record;
}

/**
 * How the verifier script is started. A script with an interpreter line (`#!/bin/bash`, `#!/usr/bin/env python3`)
 * is written into /tests (as `test.sh`, Harbor's name, unless a verifier file already has it) and run by that
 * interpreter exactly as the kernel would: interpreter, its one optional argument, the script's path. This never
 * needs /tests to allow exec. Any other script runs under `/bin/sh -c`. Either way the interpreter comes from the
 * image through the verifier's fixed PATH, never from the workdir.
 */
export function verifierLaunch(env: EnvironmentSpec): { argv: string[]; file?: { path: string; content: string; mode: string } } {
  const script = env.verifier.script;
  const line = /^#!\s*(\S+)(?:[ \t]+(\S(?:.*\S)?))?[ \t]*$/m.exec(script.split('\n', 1)[0] ?? '');
  // `#!/bin/sh` scripts (every built-in family's) keep running as they always did.
  if (!line || !script.startsWith('#!') || (line[1] === '/bin/sh' && !line[2])) return { argv: ['/bin/sh', '-c', script] };
  const taken = new Set(env.verifier.files.map((f) => f.path));
  const name = taken.has('test.sh') ? '.coevolve-verifier' : 'test.sh';
  const path = `${verifierPaths.tests}/${name}`;
  return { argv: [line[1]!, ...(line[2] ? [line[2]] : []), path], file: { path: name, content: script, mode: '755' } };
}

type RewardFile = { kind: 'none' } | { kind: 'unreadable'; why: string } | { kind: 'text'; name: string; text: string };

async function readRewardFile(box: Sandbox, signal?: Cancellation): Promise<RewardFile> {
  for (const path of [verifierPaths.rewardJson, verifierPaths.rewardTxt]) {
    let bytes: Buffer | undefined;
    try {
      const exists = await box.exec(['/bin/sh', '-c', '[ -e "$1" ] || [ -L "$1" ]', 'sh', path], { as: 'verifier', timeoutMs: 10_000, ...(signal ? { signal } : {}) });
      if (exists.exitCode !== 0) continue;
      bytes = await box.getFile(path, signal ? { signal } : {});
    } catch (err) {
      if (err instanceof SandboxFaultError) return { kind: 'unreadable', why: err.message };
      throw err;
    }
    if (bytes === undefined) return { kind: 'unreadable', why: `${path} is not a regular file` };
    if (bytes.length > 64 * 1024) return { kind: 'unreadable', why: `${path} is larger than 64 KiB` };
    return { kind: 'text', name: path, text: bytes.toString('utf8') };
  }
  return { kind: 'none' };
}

/**
 * Step 5 of the rule: timed out → 0; a non-zero exit → 0 unless the environment reads partial credit from the
 * file; exit 0 → the file's value, or 1 without a file (0 when the environment requires a reward file, as Harbor
 * does); a file that is there but unreadable or unparsable → 0.
 */
export function rewardOf(run: { exitCode: number; stdout: string; stderr: string; timedOut: boolean; durationMs: number }, file: RewardFile, partialCredit: boolean, requireRewardFile = false): VerifierOutcome {
  const parsed = file.kind === 'text' ? parseRewardText(file.text) : undefined;
  const notes: string[] = [];
  let reward: number;
  if (run.timedOut) {
    reward = 0;
    notes.push('the verifier timed out');
  } else if (file.kind === 'unreadable') {
    reward = 0;
    notes.push(`reward file unreadable: ${file.why}`);
  } else if (file.kind === 'text' && !parsed) {
    reward = 0;
    notes.push(`${file.name} holds no number or map of numbers`);
  } else if (file.kind === 'none' && requireRewardFile) {
    reward = 0;
    notes.push(`the verifier wrote no ${verifierPaths.rewardTxt} or reward.json; this environment requires one (Harbor's rule)`);
  } else if (run.exitCode !== 0) {
    reward = partialCredit && parsed ? parsed.reward : 0;
    if (!partialCredit) notes.push(`the verifier exited ${run.exitCode}; without verifier.partialCredit a failing exit gives 0`);
  } else {
    reward = parsed ? parsed.reward : 1;
  }
  const outcome: VerifierOutcome = { exitCode: run.exitCode, stdout: run.stdout, stderr: run.stderr, timedOut: run.timedOut, durationMs: run.durationMs, reward, detail: parsed?.detail ?? {} };
  if (notes.length > 0) outcome.note = notes.join('; ');
  return outcome;
}
