import { stringify as stringifyToml } from 'smol-toml';
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
  /** [agent] timeout_sec: the run's wall-clock budget per rollout. */
  agentTimeoutSec: number;
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
  files.push({ path: 'tests/test.sh', content: renderTestSh(env), mode: 0o755 });
  files.push({ path: 'tests/verify.sh', content: env.verifier.script, mode: 0o755 });
  for (const f of env.verifier.files) files.push({ path: `tests/files/${f.path}`, content: f.content, mode: modeOf(f.mode, 0o644) });
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
      limits: { pids: lim.pids, command_timeout_sec: lim.commandTimeoutSec, max_output_bytes: lim.maxOutputBytes },
    },
    verifier: { reward_file: env.verifier.rewardFile },
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
    verifier: { timeout_sec: env.verifier.timeoutSec },
    agent: { timeout_sec: options.agentTimeoutSec },
    environment: { build_timeout_sec: 600, cpus: lim.cpus, memory_mb: lim.memoryMb, storage_mb: lim.diskMb, allow_internet: false },
  };
  const header = [
    `# Harbor task exported by Coevolve from environment "${env.id}".`,
    '# [metadata.coevolve] keeps what Harbor has no field for (user side, hint, knobs, lineage) so a re-import loses nothing.',
    '',
  ].join('\n');
  return `${header}${stringifyToml(doc)}\n`;
}

function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Harbor runs tests/test.sh after the agent; it must leave a reward in /logs/verifier. */
function renderTestSh(env: EnvironmentSpec): string {
  const wd = shQuote(env.sandbox.workdir);
  const rewardFile = shQuote(env.verifier.rewardFile);
  return `#!/bin/sh
# Coevolve verifier wrapper for environment ${env.id}: copies the test files into the workspace, runs the
# verifier (tests/verify.sh) there and writes Harbor's reward file. A reward the verifier wrote itself wins over
# its exit code.
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /logs/verifier
if [ -d "$here/files" ]; then cp -R "$here/files/." ${wd}/; fi
cd ${wd} || { echo 0 > /logs/verifier/reward.txt; exit 0; }
reward_file=${rewardFile}
reward_dir=$(dirname "$reward_file")
mkdir -p "$reward_dir" 2>/dev/null
rm -f "$reward_dir/reward.json" "$reward_dir/reward.txt"
sh "$here/verify.sh"
status=$?
if [ -f "$reward_dir/reward.json" ]; then cp "$reward_dir/reward.json" /logs/verifier/reward.json
elif [ -f "$reward_dir/reward.txt" ]; then cp "$reward_dir/reward.txt" /logs/verifier/reward.txt
elif [ -f "$reward_file" ]; then cp "$reward_file" /logs/verifier/reward.txt
elif [ "$status" -eq 0 ]; then echo 1 > /logs/verifier/reward.txt
else echo 0 > /logs/verifier/reward.txt
fi
exit 0
`;
}
