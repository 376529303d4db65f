import { verifierPaths } from '../ports/sandbox.js';
import type { EnvironmentSpec } from './environment.js';
import type { SpecPath } from './problems.js';

/** A warning about a spec written for the verifier layout before the trust rule, with the field it is about. */
export interface LayoutWarning {
  path: SpecPath;
  message: string;
}

/** Characters a shell word of a path can hold; an occurrence next to one is part of another path. */
const pathChar = /[A-Za-z0-9._/$}-]/;

/**
 * Where `script` names `file` as a path of its own that is not under /tests: at a word's start (after a space, a
 * quote, "=", "<", ">", "(" or the script's start, or after "./"), not followed by more path characters.
 */
function namesRelative(script: string, file: string): boolean {
  for (let i = script.indexOf(file); i >= 0; i = script.indexOf(file, i + 1)) {
    const after = script[i + file.length];
    if (after !== undefined && pathChar.test(after)) continue;
    let start = i;
    if (script.slice(Math.max(0, i - 2), i) === './') start = i - 2;
    const before = script[start - 1];
    if (before === undefined || !pathChar.test(before)) return true;
  }
  return false;
}

/**
 * Old specs (before the trust rule, ARCHITECTURE.md) had their verifier files copied into the workspace and wrote
 * the reward wherever `verifier.rewardFile` said. Both now fail with reward 0 and no other sign: the files are at
 * /tests/<path>, and the reward is read only from /logs/verifier. `coevolve validate` and the editor say so.
 */
export function verifierLayoutWarnings(env: EnvironmentSpec): LayoutWarning[] {
  const out: LayoutWarning[] = [];
  const v = env.verifier;
  const read: string[] = [verifierPaths.rewardJson, verifierPaths.rewardTxt];
  if (v.rewardFile !== undefined && !read.includes(v.rewardFile)) {
    out.push({
      path: ['verifier', 'rewardFile'],
      message: `verifier.rewardFile is deprecated and ignored: the reward is read only from ${verifierPaths.rewardJson}, else ${verifierPaths.rewardTxt}, so what this verifier writes to ${JSON.stringify(v.rewardFile.slice(0, 200))} is never read (exit 0 gives 1, any other exit 0); write the reward to ${verifierPaths.logs}/ and remove rewardFile`,
    });
  }
  if (v.rewardFile === undefined && /\/tmp\/coevolve\/reward\.(json|txt)/.test(v.script)) {
    out.push({
      path: ['verifier', 'script'],
      message: `the script writes /tmp/coevolve/reward.*, the old default reward file, which is no longer read; write ${verifierPaths.rewardJson} or ${verifierPaths.rewardTxt} instead`,
    });
  }
  // A script that changes into /tests names its files relative to it, rightly.
  const inTests = /\bcd\s+(--\s+)?["']?\/tests\b/.test(v.script);
  v.files.forEach((f, i) => {
    if (inTests || !namesRelative(v.script, f.path)) return;
    out.push({
      path: ['verifier', 'files', i, 'path'],
      message: `verifier file "${f.path}" is written to ${verifierPaths.tests}/${f.path}, not into the workspace, but the script names "${f.path}" relative to the workdir, where it does not exist; read ${verifierPaths.tests}/${f.path}`,
    });
  });
  return out;
}
