import { lstatSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import { evalResultSchema } from '../core/metrics/metricsSchema.js';
import { runLayout } from '../store/layout.js';
import type { EvalView } from '../webview/protocol.js';

/**
 * The result `coevolve eval` stored beside its rollouts (artifacts/eval.json of an eval's run directory), read with
 * the versioned schema of seam C. A missing file is "no eval"; a link, another version or a malformed file is a
 * problem the viewer shows, never a guess.
 */
export function evalView(dir: string, ref: string): EvalView {
  const path = runLayout.artifact(dir, 'eval.json');
  let text: string;
  try {
    if (!lstatSync(path).isFile()) return { runDir: ref, result: null, problem: 'artifacts/eval.json is not a regular file' };
    text = readFileSync(path, 'utf8');
  } catch {
    return { runDir: ref, result: null };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return { runDir: ref, result: null, problem: `artifacts/eval.json is not JSON: ${err instanceof Error ? err.message.slice(0, 120) : String(err)}` };
  }
  const parsed = evalResultSchema.safeParse(raw);
  if (!parsed.success) return { runDir: ref, result: null, problem: `artifacts/eval.json does not match eval result version ${String((raw as { evalVersion?: unknown }).evalVersion)}: ${z.prettifyError(parsed.error).slice(0, 400)}` };
  return { runDir: ref, result: parsed.data };
}
