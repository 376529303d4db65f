import type { Cancellation } from '../ports/cancellation.js';
import type { Sandbox, SandboxBackend, SandboxRequest } from '../ports/sandbox.js';
import { runVerifier, sandboxRequest } from '../rollout/engine.js';
import type { VerifierOutcome } from '../rollout/trajectory.js';
import type { EnvironmentSpec } from '../spec/environment.js';

export type OracleRun = { exitCode: number; output: string; verifier: VerifierOutcome } | { error: string };
export type EmptyRun = { verifier: VerifierOutcome } | { error: string };

export interface EnvironmentValidation {
  /** The oracle ran and the verifier then gave full reward. */
  oraclePassed: boolean;
  /** With no agent action at all the verifier did not give full reward. */
  emptyFailed: boolean;
  /** One readable paragraph: what each run gave and, on failure, the verifier's own words. */
  details: string;
  oracle: OracleRun;
  empty: EmptyRun;
}

/**
 * The validation gate for a new environment: in one sandbox the oracle (root, in the workdir) then the verifier
 * must give full reward; in a fresh sandbox with no agent action the verifier must not.
 */
export async function validateEnvironment(spec: EnvironmentSpec, backend: SandboxBackend, options: { signal?: Cancellation; labels?: Record<string, string> } = {}): Promise<EnvironmentValidation> {
  const { signal } = options;
  const request = sandboxRequest(spec, { 'coevolve.env': spec.id, ...options.labels });
  const oracle = await inSandbox(backend, request, signal, async (sb, onAgentStopped) => {
    // The oracle has the agent's time (Harbor: [agent] timeout_sec) when the environment sets one, and its own env.
    const timeoutSec = spec.sandbox.limits.agentTimeoutSec ?? spec.verifier.timeoutSec;
    const ran = await sb.exec(spec.oracle.script, { privileged: true, cwd: spec.sandbox.workdir, timeoutMs: timeoutSec * 1000, signal, env: { ...spec.sandbox.env, ...spec.oracle.env } });
    const verifier = await runVerifier(sb, spec, backend, request, { ...(signal ? { signal } : {}), onAgentStopped });
    return { exitCode: ran.exitCode, output: tail(`${ran.stdout}${ran.stderr}`, 4000), verifier };
  });
  const empty = await inSandbox(backend, request, signal, async (sb, onAgentStopped) => ({ verifier: await runVerifier(sb, spec, backend, request, { ...(signal ? { signal } : {}), onAgentStopped }) }));
  const oraclePassed = 'verifier' in oracle && oracle.verifier.reward >= 1;
  const emptyFailed = 'verifier' in empty && empty.verifier.reward < 1;
  return { oraclePassed, emptyFailed, details: describe(spec, oracle, oraclePassed, empty, emptyFailed), oracle, empty };
}

/**
 * Runs `body` in a new sandbox and stops it after, once: `body` calls `onAgentStopped` when the verifier stopped it
 * already (fresh mode), so it is not stopped again.
 */
async function inSandbox<T>(backend: SandboxBackend, request: SandboxRequest, signal: Cancellation | undefined, body: (sb: Sandbox, onAgentStopped: () => void) => Promise<T>): Promise<T | { error: string }> {
  let sb: Sandbox | undefined;
  try {
    sb = await backend.start(request, { signal });
    return await body(sb, () => (sb = undefined));
  } catch (err) {
    return { error: `${backend.name} sandbox for image ${request.image}: ${err instanceof Error ? err.message : String(err)}` };
  } finally {
    await sb?.stop();
  }
}

function describe(spec: EnvironmentSpec, oracle: OracleRun, oraclePassed: boolean, empty: EmptyRun, emptyFailed: boolean): string {
  const o = 'error' in oracle
    ? `oracle: ${oracle.error}`
    : `oracle: exit ${oracle.exitCode}, verifier reward ${oracle.verifier.reward}${oraclePassed ? '' : ` (needs 1). Oracle output: ${tail(oracle.output, 600)} Verifier output: ${tail(oracle.verifier.stdout + oracle.verifier.stderr, 800)}`}`;
  const e = 'error' in empty
    ? `empty agent: ${empty.error}`
    : `empty agent: verifier reward ${empty.verifier.reward}${emptyFailed ? '' : ' (the task is already solved before the agent acts: make the verifier check something the agent must do)'}`;
  return `${spec.id}: ${o}; ${e}.`;
}

const tail = (s: string, n: number): string => (s.length > n ? s.slice(-n) : s);
