// "Validate" for one environment spec file, as the CodeLens and the Testing API run it: the spec must parse, the
// oracle must pass and an empty agent must fail, in a sandbox. No vscode import: output goes through a callback,
// cancellation through an AbortSignal.
import type { Cancellation } from '../../core/ports/cancellation.js';
import type { SandboxBackend } from '../../core/ports/sandbox.js';
import { validateEnvironment, type EnvironmentValidation } from '../../core/evolution/validateEnvironment.js';
import type { EnvironmentSpec } from '../../core/spec/environment.js';
import { parseSpecText } from '../../core/spec/parse.js';
import type { Problem } from '../../core/spec/problems.js';

export interface EnvironmentCheck {
  passed: boolean;
  /** One sentence per failed part, for the test result message. */
  message: string;
  /** The spec problem to point at when the spec itself does not parse. */
  problem?: Problem;
  validation?: EnvironmentValidation;
}

/** Parses the text as an environment spec; problems come back as a failed check (nothing is run). */
export function environmentFromText(text: string, file: string): { spec: EnvironmentSpec } | EnvironmentCheck {
  const parsed = parseSpecText(text, file, 'Environment');
  const firstError = parsed.problems.find((p) => p.severity === 'error');
  if (!parsed.spec || firstError) {
    const p = firstError ?? parsed.problems[0];
    return {
      passed: false,
      message: p ? `the spec does not validate: ${p.line}:${p.column}: ${p.message}` : 'the spec does not validate',
      ...(p ? { problem: p } : {}),
    };
  }
  return { spec: parsed.spec as EnvironmentSpec };
}

/**
 * Runs the oracle and the empty agent in `backend`. Lines of progress go to `out` (with CRLF line ends, which the
 * Testing API's terminal-like output needs).
 */
export async function checkEnvironment(spec: EnvironmentSpec, backend: SandboxBackend, out: (text: string) => void, signal?: Cancellation): Promise<EnvironmentCheck> {
  out(`${spec.id}: oracle and empty agent in a ${backend.name} sandbox (image ${spec.sandbox.image})\r\n`);
  const validation = await validateEnvironment(spec, backend, { signal, labels: { 'coevolve.origin': 'editor' } });
  if ('error' in validation.oracle) out(`  oracle: ${validation.oracle.error}\r\n`);
  else {
    out(`  oracle: exit ${validation.oracle.exitCode}, verifier reward ${validation.oracle.verifier.reward} ${validation.oraclePassed ? 'PASS' : 'FAIL (needs 1)'}\r\n`);
    const said = `${validation.oracle.verifier.stdout}${validation.oracle.verifier.stderr}`.trim();
    if (said) out(indent(said));
  }
  if ('error' in validation.empty) out(`  empty agent: ${validation.empty.error}\r\n`);
  else out(`  empty agent: verifier reward ${validation.empty.verifier.reward} ${validation.emptyFailed ? 'PASS (fails as it should)' : 'FAIL (the task is solved before the agent acts)'}\r\n`);
  const passed = validation.oraclePassed && validation.emptyFailed;
  const parts: string[] = [];
  if (!validation.oraclePassed) parts.push('the oracle does not pass the verifier');
  if (!validation.emptyFailed) parts.push('an empty agent already passes (or the empty run could not be played)');
  const message = passed ? `${spec.id}: oracle passes, empty agent fails` : `${parts.join('; ')}. ${validation.details}`;
  out(`${passed ? 'PASSED' : 'FAILED'}: ${message}\r\n`);
  return { passed, message, validation };
}

function indent(text: string): string {
  return `${text.split(/\r?\n/).slice(-20).map((l) => `    ${l}`).join('\r\n')}\r\n`;
}
