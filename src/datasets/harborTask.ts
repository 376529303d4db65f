import { stringify as stringifyToml } from 'smol-toml';
import { verifierLaunch } from '../core/rollout/verification.js';
import type { EnvironmentSpec } from '../core/spec/environment.js';
import { renderDockerfile } from './dockerfile.js';

/** One file of an exported task folder, relative to the folder. */
export interface TaskFile {
  path: string;
  content: string;
  /** octal permission bits, e.g. 0o755 */
  mode: number;
}

export interface HarborTaskOptions {
  /** FROM of the Dockerfile; the environment's own sandbox image when absent. */
  baseImage?: string;
  /**
   * The run's wall-clock budget per rollout, named in a task.toml comment when the environment sets no agent timeout.
   * Never written as `[agent] timeout_sec`: it covers the agent's turns, verification and the user's rating together.
   */
  runWallClockSec?: number;
  /** Append the user's request and hidden facts to instruction.md, for harnesses with no simulated user. */
  inlineUser: boolean;
  runId?: string;
}

export const harborExportFormat = 'coevolve-harbor-export/1';
/** Separates the instruction from the inlined user side, so an import can take the instruction back exactly. */
export const inlineUserMarker = '<!-- coevolve:user-context -->';

/** Harbor's difficulty is a word; the number stays in [metadata.coevolve]. */
function difficultyWord(d: number): string {
  return d < 34 ? 'easy' : d < 67 ? 'medium' : 'hard';
}

function modeOf(mode: string | undefined, fallback: number): number {
  return mode ? Number.parseInt(mode, 8) : fallback;
}

/**
 * An environment as a Harbor task folder: task.toml, instruction.md, environment/Dockerfile (+ workspace files),
 * tests/test.sh writing /logs/verifier/reward.txt (our verifier script and files beside it), solution/solve.sh.
 * Everything Harbor has no place for (user side, hint, knobs, lineage) goes into [metadata.coevolve].
 */
export function renderHarborTask(env: EnvironmentSpec, options: HarborTaskOptions): TaskFile[] {
  const files: TaskFile[] = [];
  const sb = env.sandbox;
  files.push({ path: 'task.toml', content: renderTaskToml(env, options), mode: 0o644 });
  let instruction = env.instruction;
  if (options.inlineUser) instruction = `${instruction}\n\n${inlineUserMarker}\n${renderUserContext(env)}`;
  files.push({ path: 'instruction.md', content: instruction, mode: 0o644 });
  files.push({
    path: 'environment/Dockerfile',
    content: renderDockerfile({ image: options.baseImage ?? sb.image, workdir: sb.workdir, env: sb.env, copyWorkspace: sb.files.length > 0, setup: sb.setup }, env.id),
    mode: 0o644,
  });
  for (const f of sb.files) files.push({ path: `environment/workspace/${f.path}`, content: f.content, mode: modeOf(f.mode, 0o644) });
  // tests/ is /tests at Harbor's runtime: the wrapper, our verifier beside it, and the verifier's files at the
  // paths the verifier reads them from (relative to /tests).
  files.push({ path: 'tests/test.sh', content: renderTestSh(env), mode: 0o755 });
  files.push({ path: 'tests/verify.sh', content: env.verifier.script, mode: 0o755 });
  for (const f of env.verifier.files) {
    if (f.path === 'test.sh' || f.path === 'verify.sh') throw new Error(`environment ${env.id}: verifier file "${f.path}" would replace the exported tests/${f.path}; rename it`);
    files.push({ path: `tests/${f.path}`, content: f.content, mode: modeOf(f.mode, 0o644) });
  }
  files.push({ path: 'solution/solve.sh', content: env.oracle.script, mode: 0o755 });
  return files;
}

function renderUserContext(env: EnvironmentSpec): string {
  const lines = ['## What the user asks', '', env.user.request.trim(), ''];
  if (env.user.facts.length > 0) {
    lines.push('## What the user knows', '');
    for (const f of env.user.facts) lines.push(`- ${f.text.trim()}`);
    lines.push('');
  }
  return lines.join('\n');
}

function renderTaskToml(env: EnvironmentSpec, options: HarborTaskOptions): string {
  const lim = env.sandbox.limits;
  const lineage: Record<string, unknown> = { generation: env.lineage.generation };
  if (env.lineage.parent) lineage.parent = env.lineage.parent;
  if (env.lineage.operator) lineage.operator = env.lineage.operator;
  const coevolve: Record<string, unknown> = {
    format: harborExportFormat,
    id: env.id,
    title: env.title,
    family: env.family,
    difficulty: env.difficulty,
    skills: env.skills,
    knobs: env.knobs,
    lineage,
    provenance: env.provenance,
    sandbox: {
      image: env.sandbox.image,
      workdir: env.sandbox.workdir,
      limits: { pids: lim.pids, command_timeout_sec: lim.commandTimeoutSec, max_output_bytes: lim.maxOutputBytes, ...(lim.agentTimeoutSec !== undefined ? { agent_timeout_sec: lim.agentTimeoutSec } : {}) },
      ...(env.sandbox.agentUser ? { agent_user: env.sandbox.agentUser } : {}),
    },
    verifier: { mode: env.verifier.mode, partial_credit: env.verifier.partialCredit, ...(env.verifier.requireRewardFile !== undefined ? { require_reward_file: env.verifier.requireRewardFile } : {}) },
    user: {
      request: env.user.request,
      goal: env.user.goal,
      required_facts: env.user.requiredFacts,
      facts: env.user.facts.map((f) => ({ id: f.id, text: f.text, keywords: f.keywords })),
    },
    inline_user: options.inlineUser,
  };
  if (env.hint !== undefined) coevolve.hint = env.hint;
  if (options.runId) coevolve.run_id = options.runId;
  const doc = {
    version: '1.0',
    metadata: {
      author_name: env.provenance.author ?? 'coevolve',
      difficulty: difficultyWord(env.difficulty),
      category: env.family,
      tags: env.skills,
      coevolve,
    },
    verifier: { timeout_sec: env.verifier.timeoutSec, ...(env.verifier.env && Object.keys(env.verifier.env).length > 0 ? { env: env.verifier.env } : {}) },
    // Harbor's timeout_sec is optional; absent, the environment has no agent timeout of its own (see the header).
    agent: { ...(lim.agentTimeoutSec !== undefined ? { timeout_sec: lim.agentTimeoutSec } : {}), ...(env.sandbox.agentUser === 'nobody' ? { user: 'nobody' } : {}) },
    ...(env.oracle.env && Object.keys(env.oracle.env).length > 0 ? { solution: { env: env.oracle.env } } : {}),
    environment: { build_timeout_sec: 600, cpus: lim.cpus, memory_mb: lim.memoryMb, storage_mb: lim.diskMb, allow_internet: false },
  };
  const header = [
    `# Harbor task exported by Coevolve from environment "${env.id}".`,
    '# [metadata.coevolve] keeps what Harbor has no field for (user side, hint, knobs, lineage) so a re-import loses nothing.',
    ...(lim.agentTimeoutSec === undefined ? [noAgentTimeoutComment(options.runWallClockSec)] : []),
    '',
  ].join('\n');
  return `${header}${stringifyToml(doc)}\n`;
}

/** Why [agent] has no timeout_sec: the environment set none, and the run's wall clock was not the agent's alone. */
function noAgentTimeoutComment(runWallClockSec: number | undefined): string {
  const run = runWallClockSec === undefined ? '' : ` The run gave each rollout ${runWallClockSec} s of wall clock for the agent's turns, verification and the user's rating together, not the agent alone.`;
  return `# [agent] has no timeout_sec: the environment sets no agent timeout of its own.${run}`;
}

function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * test.sh in fresh mode: ends every process but this script's own ancestry, pid 1 and, when pid 1 is an init, the
 * container's main process, so nothing the agent left races the verifier.
 */
const endAgentProcessesSh = `  # End every process but this script's own ancestry, pid 1 and, when pid 1 is an init, the container's main
  # process (the init's first child), so nothing the agent left races the verifier.
  started() { read -r l < /proc/$1/stat 2>/dev/null || return 1; l=\${l##*) }; set -- $l; echo "\${20}"; }
  parent() { sed -n 's/^PPid:[[:space:]]*//p' /proc/$1/status 2>/dev/null; }
  keep=" 1 $$ "; p=$$
  while [ -r /proc/$p/status ]; do
    p=$(parent "$p"); [ -n "$p" ] && [ "$p" != 0 ] || break
    keep="$keep$p "
  done
  case "$(cat /proc/1/comm 2>/dev/null)" in
    docker-init|tini|init|dumb-init|catatonit)
      first=; first_t=
      for d in /proc/[0-9]*; do
        pid=\${d#/proc/}; [ "$(parent "$pid")" = 1 ] || continue
        t=$(started "$pid") || continue
        if [ -z "$first_t" ] || [ "$t" -lt "$first_t" ]; then first=$pid; first_t=$t; fi
      done
      keep="$keep$first ";;
  esac
  for round in 1 2 3 4 5 6 7 8; do
    for d in /proc/[0-9]*; do
      pid=\${d#/proc/}
      case "$keep" in *" $pid "*) ;; *) kill -9 "$pid" 2>/dev/null;; esac
    done
  done
`;

/** test.sh before verify.sh: links that leave the workdir (or dangle), FIFOs, sockets and devices are removed. */
const removeEscapingLinksSh = `# Links that leave the workdir (or dangle), FIFOs, sockets and devices are removed before the verifier reads it.
find "$W" \\( -type l -o -type p -o -type s -o -type b -o -type c \\) -exec sh -c '
W=$1; shift
for p in "$@"; do
  if [ -L "$p" ] && [ -e "$p" ]; then
    t=$(readlink -f -- "$p" 2>/dev/null) && case "$t" in "$W"|"$W"/*) continue;; esac
  fi
  rm -f -- "$p"
done' sh "$W" {} +
`;

/**
 * Harbor runs tests/test.sh in the agent's container after the agent, with /tests uploaded only then. The wrapper
 * applies Coevolve's trust rule there (ARCHITECTURE.md): fixed environment; in fresh mode every process that is
 * not its own ancestor ended first (in-place tasks may check a service the agent left running); links of the
 * workdir that leave it and special files removed; /logs/verifier emptied; then tests/verify.sh, and a reward
 * by the rule: a failing exit gives 0 unless the environment reads partial credit.
 */
function renderTestSh(env: EnvironmentSpec): string {
  const wd = shQuote(env.sandbox.workdir.replace(/\/+$/, '') || '/');
  const endProcesses = env.verifier.mode === 'fresh' ? 1 : 0;
  const partial = env.verifier.partialCredit ? 1 : 0;
  const requireFile = env.verifier.requireRewardFile ? 1 : 0;
  // verify.sh by its own interpreter line, as the product's verifier runs it (verifierLaunch).
  const launch = verifierLaunch(env).argv;
  const runVerify = launch[1] === '-c' && launch[0] === '/bin/sh' ? 'sh "$here/verify.sh"' : `${launch.slice(0, -1).map(shQuote).join(' ')} "$here/verify.sh"`;
  const exports = Object.entries(env.verifier.env ?? {}).map(([k, v]) => `${k}=${shQuote(v)}; export ${k}\n`).join('');
  return `#!/bin/sh
# Coevolve verifier wrapper for environment ${env.id} (see "The verifier's trust rule" in Coevolve's ARCHITECTURE.md).
# The reward goes to /logs/verifier/reward.txt, or stays in /logs/verifier/reward.json as verify.sh wrote it.
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
HOME=/logs/verifier PYTHONNOUSERSITE=1 PYTHONDONTWRITEBYTECODE=1 PYTHONSAFEPATH=1 PYTHONPATH=/tests LANG=C.UTF-8
export PATH HOME PYTHONNOUSERSITE PYTHONDONTWRITEBYTECODE PYTHONSAFEPATH PYTHONPATH LANG
unset ENV BASH_ENV CDPATH PYTHONHOME PYTHONSTARTUP LD_PRELOAD LD_LIBRARY_PATH
${exports}here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd -P)
W=${wd}
L=/logs/verifier
if [ ${endProcesses} = 1 ]; then
${endAgentProcessesSh}fi
mkdir -p "$L"
rm -rf -- "$L"/* "$L"/.[!.]* "$L"/..?*
zero() { rm -rf -- "$L/reward.json" "$L/reward.txt"; echo 0 > "$L/reward.txt"; exit 0; }
cd "$W" 2>/dev/null || zero
${removeEscapingLinksSh}${runVerify} </dev/null
status=$?
regular() { [ -f "$1" ] && [ ! -L "$1" ]; }
if [ "$status" -ne 0 ] && [ ${partial} = 0 ]; then zero; fi
if regular "$L/reward.json"; then rm -rf -- "$L/reward.txt"; exit 0; fi
if regular "$L/reward.txt"; then rm -rf -- "$L/reward.json"; exit 0; fi
rm -rf -- "$L/reward.json" "$L/reward.txt"
if [ "$status" -eq 0 ] && [ ${requireFile} = 0 ]; then echo 1 > "$L/reward.txt"; else echo 0 > "$L/reward.txt"; fi
exit 0
`;
}
