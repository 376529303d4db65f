import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { parse as parseToml, TomlError } from 'smol-toml';
import { specApiVersion } from '../core/spec/common.js';
import { environmentSpecSchema, type EnvironmentSpec, type EnvironmentSpecInput } from '../core/spec/environment.js';
import { toolVersion } from '../core/version.js';
import { readDockerfile } from './dockerfile.js';
import { harborExportFormat, inlineUserMarker } from './harborTask.js';
import { idFromName } from './idFromName.js';
import type { ImportedItem, ImportResult, SkippedItem } from './importReport.js';

export interface HarborImportOptions {
  /** License of the source suite, recorded in provenance (e.g. "apache-2.0"). */
  license?: string;
  now?: Date;
}

type Table = Record<string, unknown>;

const placeholderOracle = "echo 'the source task has no solution/solve.sh; write an oracle before validating this environment' >&2\nexit 1\n";

/**
 * Harbor / Terminal-Bench 2.x task folders as environment specs. Each argument may be a task folder or a folder
 * holding task folders (a dataset, or a Coevolve harbor export). Nothing here throws for a bad task: every
 * problem becomes a skipped item or an "unmapped" note in the result.
 */
export function importHarborTasks(paths: readonly string[], options: HarborImportOptions = {}): ImportResult<EnvironmentSpec> {
  const result: ImportResult<EnvironmentSpec> = { imported: [], skipped: [] };
  const seen = new Set<string>();
  for (const p of paths) {
    const found = findTaskDirs(resolve(p), result.skipped);
    for (const dir of found) {
      if (seen.has(dir)) continue;
      seen.add(dir);
      try {
        const r = importHarborTask(dir, options);
        if ('reason' in r) result.skipped.push(r);
        else result.imported.push(r);
      } catch (err) {
        // A bug or an unreadable file must not end the whole import.
        result.skipped.push({ source: dir, reason: `could not be read: ${err instanceof Error ? err.message : String(err)}` });
      }
    }
  }
  return result;
}

const taskMarkers = ['task.toml', 'instruction.md', 'task.yaml'];

function isTaskDir(dir: string): boolean {
  return taskMarkers.some((m) => existsSync(join(dir, m))) || existsSync(join(dir, 'tests', 'test.sh'));
}

function findTaskDirs(path: string, skipped: SkippedItem[]): string[] {
  if (!existsSync(path)) {
    skipped.push({ source: path, reason: 'does not exist' });
    return [];
  }
  if (!statSync(path).isDirectory()) {
    skipped.push({ source: path, reason: 'is a file; pass a Harbor task folder (with task.toml, instruction.md, tests/) or a folder of them' });
    return [];
  }
  if (isTaskDir(path)) return [path];
  const out: string[] = [];
  const walk = (dir: string, depth: number) => {
    for (const name of readdirSync(dir).sort()) {
      if (name.startsWith('.') || name === 'node_modules') continue;
      const sub = join(dir, name);
      if (!statSync(sub).isDirectory()) continue;
      if (isTaskDir(sub)) out.push(sub);
      else if (depth < 3) walk(sub, depth + 1);
    }
  };
  walk(path, 1);
  if (out.length === 0) skipped.push({ source: path, reason: 'no Harbor task folders found in it (a task folder has task.toml, instruction.md and tests/test.sh)' });
  return out;
}

function listFiles(root: string): string[] {
  if (!existsSync(root)) return [];
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else if (st.isFile()) out.push(relative(root, p).split('\\').join('/'));
    }
  };
  walk(root);
  return out;
}

/** A file as a sandbox file; binary files cannot be carried in a spec and are reported instead. */
function readSandboxFiles(root: string, prefix: string, exclude: (rel: string) => boolean, unmapped: string[], what: string): { path: string; content: string; mode?: string }[] {
  const files: { path: string; content: string; mode?: string }[] = [];
  for (const rel of listFiles(root)) {
    if (exclude(rel)) continue;
    const abs = join(root, rel);
    const buf = readFileSync(abs);
    if (buf.includes(0)) {
      unmapped.push(`${what}/${rel}: binary file; specs carry text files only`);
      continue;
    }
    if (buf.length > 4 * 1024 * 1024) {
      unmapped.push(`${what}/${rel}: larger than 4 MiB, the limit of a spec file`);
      continue;
    }
    const mode = statSync(abs).mode & 0o777;
    const f: { path: string; content: string; mode?: string } = { path: `${prefix}${rel}`, content: buf.toString('utf8') };
    if (mode !== 0o644) f.mode = mode.toString(8).padStart(3, '0');
    files.push(f);
  }
  return files;
}

function readText(path: string): string | undefined {
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** "2G", "512M", "1024" (MiB) as MiB; Harbor's older `memory` / `storage` strings. */
function sizeMb(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string') return undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]i?b?)?\s*$/i.exec(v);
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = (m[2] ?? 'm')[0]!.toLowerCase();
  return Math.round(unit === 'k' ? n / 1024 : unit === 'g' ? n * 1024 : unit === 't' ? n * 1024 * 1024 : n);
}

function clamp(value: number, lo: number, hi: number, field: string, unmapped: string[]): number {
  if (value < lo || value > hi) {
    const c = Math.min(hi, Math.max(lo, value));
    unmapped.push(`${field} = ${value}: outside ${lo}..${hi}, set to ${c}`);
    return c;
  }
  return value;
}

function findCanary(texts: (string | undefined)[]): string | undefined {
  for (const t of texts) {
    const line = t?.split('\n').find((l) => /canary/i.test(l) && /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i.test(l));
    if (line) return line.replace(/^[#\s/*<!-]+|[\s*/>-]+$/g, '').slice(0, 256);
  }
  return undefined;
}

function titleOf(instruction: string, fallback: string): string {
  const heading = /^#{1,3}\s+(.+)$/m.exec(instruction)?.[1]?.trim();
  if (heading) return heading.slice(0, 200);
  return fallback.replace(/[-_]+/g, ' ').replace(/^\w/, (c) => c.toUpperCase()).slice(0, 200);
}

export function importHarborTask(dir: string, options: HarborImportOptions = {}): ImportedItem<EnvironmentSpec> | SkippedItem {
  const unmapped: string[] = [];
  const name = basename(dir);
  if (existsSync(join(dir, 'task.yaml')) && !existsSync(join(dir, 'task.toml'))) {
    return { source: dir, reason: 'Terminal-Bench 1 layout (task.yaml); convert it to a Harbor task first (harbor tasks migrate)' };
  }

  // task.toml: optional for the import (defaults apply), but when present it must parse.
  let toml: Table = {};
  const tomlText = readText(join(dir, 'task.toml'));
  if (tomlText === undefined) {
    unmapped.push('task.toml: missing; limits and timeouts left at Coevolve defaults');
  } else {
    try {
      toml = parseToml(tomlText) as Table;
    } catch (err) {
      const where = err instanceof TomlError ? ` at line ${err.line}, column ${err.column}` : '';
      const msg = err instanceof Error ? err.message.split('\n')[0] : String(err);
      return { source: dir, reason: `task.toml does not parse${where}: ${msg}; fix the TOML and import again` };
    }
  }
  const meta = (toml.metadata as Table | undefined) ?? {};
  const co = meta.coevolve as Table | undefined;
  const ours = co?.format === harborExportFormat;

  let instruction = readText(join(dir, 'instruction.md'));
  if (instruction === undefined) return { source: dir, reason: 'instruction.md is missing: there is nothing to tell the agent' };
  if (ours && co?.inline_user === true) {
    const at = instruction.lastIndexOf(`\n\n${inlineUserMarker}\n`);
    if (at >= 0) instruction = instruction.slice(0, at);
  }
  if (instruction.trim().length === 0) return { source: dir, reason: 'instruction.md is empty' };

  const testSh = readText(join(dir, 'tests', 'test.sh'));
  if (testSh === undefined) return { source: dir, reason: 'tests/test.sh is missing: nothing could check the agent\'s work (Harbor requires it)' };

  const solveSh = readText(join(dir, 'solution', 'solve.sh'));
  const dockerText = readText(join(dir, 'environment', 'Dockerfile'));
  const docker = dockerText !== undefined ? readDockerfile(dockerText) : undefined;
  const header: string[] = [
    `Imported from the Harbor task ${dir}`,
    `by Coevolve ${toolVersion} on ${(options.now ?? new Date()).toISOString().slice(0, 10)}.`,
  ];

  const id = ours && typeof co?.id === 'string' ? co.id : idFromName(name, 'harbor-task');
  const envSec = (toml.environment as Table | undefined) ?? {};
  const verSec = (toml.verifier as Table | undefined) ?? {};
  const agentSec = (toml.agent as Table | undefined) ?? {};

  // ---- sandbox
  const sandbox: NonNullable<EnvironmentSpecInput['sandbox']> = {};
  const limits: Record<string, number> = {};
  if (docker?.kind === 'coevolve') {
    sandbox.image = docker.sandbox.image;
    sandbox.workdir = docker.sandbox.workdir;
    if (Object.keys(docker.sandbox.env).length > 0) sandbox.env = docker.sandbox.env;
    if (docker.sandbox.setup.length > 0) sandbox.setup = docker.sandbox.setup;
    const files = readSandboxFiles(join(dir, 'environment', 'workspace'), '', () => false, unmapped, 'environment/workspace');
    if (files.length > 0) sandbox.files = files;
  } else {
    const tag = typeof envSec.docker_image === 'string' ? envSec.docker_image : `harbor/${id}:latest`;
    sandbox.image = tag;
    if (docker?.kind === 'foreign') {
      if (docker.workdir && /^\/[A-Za-z0-9._/-]*$/.test(docker.workdir)) sandbox.workdir = docker.workdir;
      header.push(`Build context: ${join(dir, 'environment')} (Dockerfile FROM ${docker.from ?? '?'}).`);
      if (typeof envSec.docker_image !== 'string') {
        header.push(`Build it with: docker build -t ${tag} ${join(dir, 'environment')}`);
        unmapped.push(`environment/Dockerfile: kept as the build context reference (${docker.instructions.length} instructions); build it as ${tag}, which sandbox.image names`);
      }
    } else if (dockerText === undefined) {
      unmapped.push(`environment/Dockerfile: missing (a docker-compose task?); sandbox.image is ${tag}, which you must provide`);
    }
  }
  const cpus = num(envSec.cpus);
  if (cpus !== undefined) limits.cpus = clamp(cpus, 0.1, 64, 'environment.cpus', unmapped);
  const mem = num(envSec.memory_mb) ?? sizeMb(envSec.memory);
  if (mem !== undefined) limits.memoryMb = clamp(Math.round(mem), 16, 65536, 'environment.memory_mb', unmapped);
  const disk = num(envSec.storage_mb) ?? sizeMb(envSec.storage);
  if (disk !== undefined) limits.diskMb = clamp(Math.round(disk), 1, 65536, 'environment.storage_mb', unmapped);
  if (ours) {
    const l = ((co?.sandbox as Table | undefined)?.limits as Table | undefined) ?? {};
    if (num(l.pids) !== undefined) limits.pids = num(l.pids)!;
    if (num(l.command_timeout_sec) !== undefined) limits.commandTimeoutSec = num(l.command_timeout_sec)!;
    if (num(l.max_output_bytes) !== undefined) limits.maxOutputBytes = num(l.max_output_bytes)!;
  } else {
    if (num(agentSec.timeout_sec) !== undefined) unmapped.push(`agent.timeout_sec = ${String(agentSec.timeout_sec)}: Coevolve sets the wall clock per run (budgets.wallClockSec in the run config)`);
    for (const k of ['gpus', 'gpu_types', 'mcp_servers', 'healthcheck']) if (envSec[k] !== undefined && envSec[k] !== 0) unmapped.push(`environment.${k}: Coevolve sandboxes have no equivalent`);
    if (envSec.allow_internet === true) unmapped.push('environment.allow_internet = true: Coevolve sandboxes never have a network');
  }
  if (Object.keys(limits).length > 0) sandbox.limits = limits as NonNullable<typeof sandbox.limits>;

  // ---- verifier
  let verifier: EnvironmentSpecInput['verifier'];
  const verifyTimeout = num(verSec.timeout_sec);
  const timeoutSec = verifyTimeout !== undefined ? clamp(verifyTimeout, 1, 3600, 'verifier.timeout_sec', unmapped) : undefined;
  if (ours && existsSync(join(dir, 'tests', 'verify.sh'))) {
    verifier = { script: readFileSync(join(dir, 'tests', 'verify.sh'), 'utf8') };
    const files = readSandboxFiles(join(dir, 'tests', 'files'), '', () => false, unmapped, 'tests/files');
    if (files.length > 0) verifier.files = files;
    const rf = (co?.verifier as Table | undefined)?.reward_file;
    if (typeof rf === 'string') verifier.rewardFile = rf;
  } else {
    verifier = { script: testSh, rewardFile: '/logs/verifier/reward.txt' };
    const files = readSandboxFiles(join(dir, 'tests'), 'tests/', (rel) => rel === 'test.sh', unmapped, 'tests');
    if (files.length > 0) verifier.files = files;
    if (/(^|[\s"'=])\/tests\//.test(testSh)) unmapped.push('tests/test.sh refers to /tests/...: Coevolve copies test files into <workdir>/tests/ instead; adjust those paths if the verifier fails');
    for (const k of Object.keys(verSec)) if (k !== 'timeout_sec') unmapped.push(`verifier.${k}: no equivalent in the verifier spec`);
  }
  if (timeoutSec !== undefined) verifier.timeoutSec = timeoutSec;

  // ---- oracle
  let oracle: EnvironmentSpecInput['oracle'];
  if (solveSh !== undefined && solveSh.trim().length > 0) {
    oracle = { script: solveSh };
    const extra = listFiles(join(dir, 'solution')).filter((f) => f !== 'solve.sh');
    if (extra.length > 0) unmapped.push(`solution/${extra.join(', solution/')}: an oracle is one script; inline these files into solve.sh`);
  } else {
    oracle = { script: placeholderOracle };
    unmapped.push('solution/solve.sh: missing; the oracle is a placeholder that fails, so validation rejects this environment until you write one');
  }

  // ---- metadata, user side, provenance
  const provenance: Record<string, string> = {};
  let input: EnvironmentSpecInput;
  if (ours && co) {
    const user = co.user as Table;
    const lineage = (co.lineage as Table | undefined) ?? {};
    const prov = (co.provenance as Record<string, string> | undefined) ?? {};
    input = {
      apiVersion: specApiVersion,
      kind: 'Environment',
      id,
      title: String(co.title ?? titleOf(instruction, name)),
      family: String(co.family ?? 'custom'),
      instruction,
      sandbox,
      verifier,
      oracle,
      ...(typeof co.hint === 'string' ? { hint: co.hint } : {}),
      user: {
        request: String(user.request),
        goal: String(user.goal),
        requiredFacts: (user.required_facts as string[] | undefined) ?? [],
        facts: ((user.facts as Table[] | undefined) ?? []).map((f) => ({ id: String(f.id), text: String(f.text), keywords: (f.keywords as string[] | undefined) ?? [] })),
      },
      difficulty: num(co.difficulty) ?? 1,
      knobs: (co.knobs as Record<string, number> | undefined) ?? {},
      skills: (co.skills as string[] | undefined) ?? [],
      lineage: { parent: typeof lineage.parent === 'string' ? lineage.parent : null, operator: typeof lineage.operator === 'string' ? lineage.operator : null, generation: num(lineage.generation) ?? 0 },
      provenance: { ...prov, ...(options.license ? { license: options.license } : {}) },
    };
  } else {
    const author = [meta.author_name, meta.author_email ? `<${String(meta.author_email)}>` : undefined].filter((x) => typeof x === 'string').join(' ');
    if (author) provenance.author = author.slice(0, 256);
    provenance.source = `harbor:${dir}`.slice(0, 1024);
    if (options.license) provenance.license = options.license;
    const canary = findCanary([instruction, testSh, solveSh, dockerText]);
    if (canary) provenance.canary = canary;
    const difficulty = typeof meta.difficulty === 'string' ? ({ easy: 25, medium: 50, hard: 75 } as Record<string, number>)[meta.difficulty.toLowerCase()] : num(meta.difficulty);
    if (meta.difficulty !== undefined && difficulty === undefined) unmapped.push(`metadata.difficulty = ${JSON.stringify(meta.difficulty)}: not easy / medium / hard; left at the default`);
    const tags = Array.isArray(meta.tags) ? meta.tags.filter((t): t is string => typeof t === 'string' && t.length > 0 && t.length <= 64).slice(0, 32) : [];
    const family = typeof meta.category === 'string' && meta.category.trim() ? meta.category.trim().slice(0, 64) : 'harbor';
    for (const [k, v] of Object.entries(meta)) {
      if (['author_name', 'author_email', 'difficulty', 'category', 'tags'].includes(k)) continue;
      header.push(`metadata.${k} = ${JSON.stringify(v)}`);
      unmapped.push(`metadata.${k}: no field in the environment spec; kept as a comment at the top of the file`);
    }
    for (const k of Object.keys(toml)) if (!['version', 'schema_version', 'metadata', 'verifier', 'agent', 'environment', 'solution', 'task', 'source'].includes(k)) unmapped.push(`${k}: unknown task.toml section, ignored`);
    const firstParagraph = instruction.trim().split(/\n\s*\n/)[0]!.slice(0, 16384);
    unmapped.push('user side: Harbor tasks have no simulated user; user.request is the instruction\'s first paragraph and user.goal says the tests must pass (add hidden facts to make the user matter)');
    const task = (toml.task as Table | undefined) ?? {};
    input = {
      apiVersion: specApiVersion,
      kind: 'Environment',
      id,
      title: typeof task.name === 'string' ? task.name.slice(0, 200) : titleOf(instruction, name),
      family,
      instruction,
      sandbox,
      verifier,
      oracle,
      user: { request: firstParagraph, goal: 'The task described in the instruction is done and the tests pass.' },
      ...(difficulty !== undefined ? { difficulty: Math.min(100, Math.max(0, difficulty)) } : {}),
      skills: tags,
      provenance,
    };
  }

  const parsed = environmentSpecSchema.safeParse(input);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    return { source: dir, reason: `does not make a valid environment spec: ${issues}` };
  }
  if (unmapped.length > 0) header.push('Not mapped:', ...unmapped.map((u) => `  - ${u}`));
  // The file keeps what was given, not every default, so it reads like a hand-written spec.
  return { source: dir, id, spec: parsed.data, document: input, header, unmapped };
}
