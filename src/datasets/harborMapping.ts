// The fields of one Harbor task folder (already read, bounded, by harborImport.ts) mapped to an environment spec:
// a Coevolve export maps back exactly from [metadata.coevolve]; a foreign task maps what it can and notes the rest.
import { join } from 'node:path';
import { specApiVersion } from '../core/spec/common.js';
import type { EnvironmentSpecInput } from '../core/spec/environment.js';
import type { DockerfileRead } from './dockerfile.js';
import { harborOracleScript } from './harborRuntime.js';
import { inlineUserMarker } from './harborTask.js';
import type { HarborImportOptions } from './harborImport.js';
import { clampNoted, cutNoted, finiteNumber, formatSourceValue, sizeMb, textListNoted } from './importValues.js';

export type Table = Record<string, unknown>;
export type SandboxFileInput = { path: string; content: string; mode?: string };

export interface HarborTaskContext {
  /** The task folder as the user named it (for provenance and the header). */
  dir: string;
  name: string;
  toml: Table;
  co: Table | undefined;
  instruction: string;
  testSh: string;
  solveSh: string | undefined;
  verifySh: string | undefined;
  dockerText: string | undefined;
  docker: DockerfileRead | undefined;
  solutionExtras: string[];
  /** Files of a folder of the task as sandbox files (notes go to unmapped). */
  files(rel: string, prefix: string, exclude?: (rel: string) => boolean): SandboxFileInput[];
  id: string;
  unmapped: string[];
  header: string[];
  options: HarborImportOptions;
}

/** A task.toml env table (`env = { KEY = "value" }`) as environment variables; what cannot be one is noted. */
function envTable(v: unknown, field: string, unmapped: string[]): Record<string, string> {
  if (v === undefined) return {};
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    unmapped.push(`${field}: not a table of variables; ignored`);
    return {};
  }
  const out: Record<string, string> = {};
  for (const [k, value] of Object.entries(v as Table)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) unmapped.push(`${field}.${k}: not a valid variable name; ignored`);
    else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') out[k] = String(value).slice(0, 4096);
    else unmapped.push(`${field}.${k}: not a string; ignored`);
  }
  return out;
}

/** The oracle of an imported task that ships none: it fails, and `coevolve check` reports the task as unvalidated. */
export const placeholderOracle = "echo 'the source task has no solution/solve.sh; write an oracle before validating this environment' >&2\nexit 1\n";

type Sandbox = NonNullable<EnvironmentSpecInput['sandbox']>;

function section(t: Table, key: string): Table {
  const v = t[key];
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Table) : {};
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

/** Image, workdir, workspace files and setup from the Dockerfile; cpus / memory / disk from [environment]. */
function sandboxOf(ctx: HarborTaskContext, ours: boolean): Sandbox {
  const { docker, unmapped, header } = ctx;
  const envSec = section(ctx.toml, 'environment');
  const sandbox: Sandbox = {};
  if (docker?.kind === 'coevolve') {
    sandbox.image = docker.sandbox.image;
    sandbox.workdir = docker.sandbox.workdir;
    if (Object.keys(docker.sandbox.env).length > 0) sandbox.env = docker.sandbox.env;
    if (docker.sandbox.setup.length > 0) sandbox.setup = docker.sandbox.setup;
    const files = ctx.files('environment/workspace', '');
    if (files.length > 0) sandbox.files = files;
  } else {
    const tag = typeof envSec.docker_image === 'string' ? envSec.docker_image : `harbor/${ctx.id}:latest`;
    sandbox.image = tag;
    if (docker?.kind === 'foreign') {
      if (docker.workdir && /^\/[A-Za-z0-9._/-]*$/.test(docker.workdir)) sandbox.workdir = docker.workdir;
      header.push(`Build context: ${join(ctx.dir, 'environment')} (Dockerfile FROM ${docker.from ?? '?'}).`);
      if (typeof envSec.docker_image !== 'string') {
        header.push(`Build it with: docker build -t ${tag} ${join(ctx.dir, 'environment')}`);
        unmapped.push(`environment/Dockerfile: kept as the build context reference (${docker.instructions.length} instructions); build it as ${tag}, which sandbox.image names`);
      }
    } else if (ctx.dockerText === undefined) {
      unmapped.push(`environment/Dockerfile: missing (a docker-compose task?); sandbox.image is ${tag}, which you must provide`);
    }
  }
  const limits = limitsOf(ctx, envSec, ours);
  if (Object.keys(limits).length > 0) sandbox.limits = limits as NonNullable<Sandbox['limits']>;
  if (!ours) {
    const user = agentUserOf(ctx);
    if (user) sandbox.agentUser = user;
  } else {
    const user = section(ctx.co ?? {}, 'sandbox').agent_user;
    if (user === 'root' || user === 'nobody') sandbox.agentUser = user;
  }
  return sandbox;
}

/**
 * Harbor runs the agent as [agent] user, else as the image's user (the Dockerfile's last USER), else root. Root
 * maps to `agentUser: root` (a writable container, as Harbor has); any other user to Coevolve's uid 65534.
 */
function agentUserOf(ctx: HarborTaskContext): 'root' | 'nobody' | undefined {
  const named = section(ctx.toml, 'agent').user;
  const fromDocker = ctx.docker?.kind === 'foreign' ? [...ctx.docker.instructions].reverse().find((l) => /^USER\s/i.test(l))?.replace(/^USER\s+/i, '').trim() : undefined;
  const user = typeof named === 'string' ? named : fromDocker;
  if (user === undefined || /^(root|0)(:(root|0))?$/.test(user)) return 'root';
  ctx.unmapped.push(`${typeof named === 'string' ? 'agent.user' : 'Dockerfile USER'} = ${JSON.stringify(user)}: the agent runs as uid 65534 (Coevolve's unprivileged agent user), not as that user`);
  return 'nobody';
}

function limitsOf(ctx: HarborTaskContext, envSec: Table, ours: boolean): Record<string, number> {
  const { unmapped } = ctx;
  const limits: Record<string, number> = {};
  const cpus = finiteNumber(envSec.cpus, 'environment.cpus', unmapped);
  if (cpus !== undefined) limits.cpus = clampNoted(cpus, 0.1, 64, 'environment.cpus', unmapped);
  const mem = envSec.memory_mb !== undefined ? finiteNumber(envSec.memory_mb, 'environment.memory_mb', unmapped) : sizeMb(envSec.memory, 'environment.memory', unmapped);
  if (mem !== undefined) limits.memoryMb = clampNoted(Math.round(mem), 16, 65536, 'environment.memory_mb', unmapped);
  const disk = envSec.storage_mb !== undefined ? finiteNumber(envSec.storage_mb, 'environment.storage_mb', unmapped) : sizeMb(envSec.storage, 'environment.storage', unmapped);
  if (disk !== undefined) limits.diskMb = clampNoted(Math.round(disk), 1, 65536, 'environment.storage_mb', unmapped);
  if (ours) {
    const l = section(section(ctx.co ?? {}, 'sandbox'), 'limits');
    const f = 'metadata.coevolve.sandbox.limits';
    const pids = finiteNumber(l.pids, `${f}.pids`, unmapped);
    if (pids !== undefined) limits.pids = pids;
    const cmd = finiteNumber(l.command_timeout_sec, `${f}.command_timeout_sec`, unmapped);
    if (cmd !== undefined) limits.commandTimeoutSec = cmd;
    const out = finiteNumber(l.max_output_bytes, `${f}.max_output_bytes`, unmapped);
    if (out !== undefined) limits.maxOutputBytes = out;
    const agent = finiteNumber(l.agent_timeout_sec, `${f}.agent_timeout_sec`, unmapped);
    if (agent !== undefined) limits.agentTimeoutSec = agent;
  } else {
    const agentSec = section(ctx.toml, 'agent');
    const agentTimeout = finiteNumber(agentSec.timeout_sec, 'agent.timeout_sec', unmapped);
    if (agentTimeout !== undefined) limits.agentTimeoutSec = clampNoted(agentTimeout, 1, 86400, 'agent.timeout_sec', unmapped);
    for (const k of ['gpus', 'gpu_types', 'mcp_servers', 'healthcheck']) if (envSec[k] !== undefined && envSec[k] !== 0) unmapped.push(`environment.${k}: Coevolve sandboxes have no equivalent`);
  }
  return limits;
}

function verifierOf(ctx: HarborTaskContext, ours: boolean): EnvironmentSpecInput['verifier'] {
  const { unmapped } = ctx;
  const verSec = section(ctx.toml, 'verifier');
  let verifier: EnvironmentSpecInput['verifier'];
  const verifyTimeout = finiteNumber(verSec.timeout_sec, 'verifier.timeout_sec', unmapped);
  const timeoutSec = verifyTimeout !== undefined ? clampNoted(verifyTimeout, 1, 3600, 'verifier.timeout_sec', unmapped) : undefined;
  if (ours && ctx.verifySh !== undefined) {
    // Our export mirrors /tests in tests/: the wrapper test.sh, our verify.sh, and the verifier's files.
    verifier = { script: ctx.verifySh };
    const files = ctx.files('tests', '', (rel) => rel === 'test.sh' || rel === 'verify.sh');
    if (files.length > 0) verifier.files = files;
    const co = section(ctx.co ?? {}, 'verifier');
    if (co.mode === 'fresh' || co.mode === 'in-place') verifier.mode = co.mode;
    if (typeof co.partial_credit === 'boolean') verifier.partialCredit = co.partial_credit;
    if (typeof co.require_reward_file === 'boolean') verifier.requireRewardFile = co.require_reward_file;
    const env = envTable(verSec.env, 'verifier.env', unmapped);
    if (Object.keys(env).length > 0) verifier.env = env;
  } else {
    // Verifier files land in /tests at Harbor's own paths, so test.sh finds /tests/... as written; test.sh itself
    // runs by its interpreter line. Harbor's reward rule: the reward file decides whatever the exit code, and no
    // reward file is no reward. TEST_DIR is the Terminal-Bench variable Harbor sets for the verifier.
    verifier = { script: ctx.testSh, partialCredit: true, requireRewardFile: true, env: { TEST_DIR: '/tests', ...envTable(verSec.env, 'verifier.env', unmapped) } };
    const files = ctx.files('tests', '', (rel) => rel === 'test.sh');
    if (files.length > 0) verifier.files = files;
    if (verSec.user !== undefined && !/^(root|0)$/.test(String(verSec.user))) unmapped.push(`verifier.user = ${formatSourceValue(verSec.user)}: the verifier runs as root`);
    for (const k of Object.keys(verSec)) if (!['timeout_sec', 'env', 'user'].includes(k)) unmapped.push(`verifier.${k}: no equivalent in the verifier spec`);
  }
  if (timeoutSec !== undefined) verifier.timeoutSec = timeoutSec;
  return verifier;
}

function oracleOf(ctx: HarborTaskContext, ours = false): EnvironmentSpecInput['oracle'] {
  // Our own export's solve.sh is the spec's oracle script itself: it maps back exactly.
  if (ours && ctx.solveSh !== undefined && ctx.solveSh.trim().length > 0) {
    const env = envTable(section(ctx.toml, 'solution').env, 'solution.env', ctx.unmapped);
    return { script: ctx.solveSh, ...(Object.keys(env).length > 0 ? { env } : {}) };
  }
  if (ctx.solveSh !== undefined && ctx.solveSh.trim().length > 0) {
    // Harbor's convention: solution/ at /solution, solve.sh run from the workdir by its own interpreter.
    const files = ctx.files('solution', '');
    const env = envTable(section(ctx.toml, 'solution').env, 'solution.env', ctx.unmapped);
    return {
      script: harborOracleScript(files.some((f) => f.path === 'solve.sh') ? files : [...files, { path: 'solve.sh', content: ctx.solveSh, mode: '755' }]),
      ...(Object.keys(env).length > 0 ? { env } : {}),
    };
  }
  ctx.unmapped.push('solution/solve.sh: missing; the oracle is a placeholder that fails, so validation rejects this environment until you write one');
  return { script: placeholderOracle };
}

/** A task Coevolve exported: [metadata.coevolve] restores every field Harbor has no place for. */
export function coevolveTaskInput(ctx: HarborTaskContext, co: Table): EnvironmentSpecInput | { reason: string } {
  let instruction = ctx.instruction;
  if (co.inline_user === true) {
    const at = instruction.lastIndexOf(`\n\n${inlineUserMarker}\n`);
    if (at >= 0) instruction = instruction.slice(0, at);
  }
  if (instruction.trim().length === 0) return { reason: 'instruction.md is empty' };
  const { unmapped } = ctx;
  const user = section(co, 'user');
  const lineage = section(co, 'lineage');
  const prov = section(co, 'provenance') as Record<string, string>;
  const f = 'metadata.coevolve';
  return {
    apiVersion: specApiVersion,
    kind: 'Environment',
    id: ctx.id,
    title: String(co.title ?? titleOf(instruction, ctx.name)),
    family: String(co.family ?? 'custom'),
    instruction,
    sandbox: sandboxOf(ctx, true),
    verifier: verifierOf(ctx, true),
    oracle: oracleOf(ctx, true),
    ...(typeof co.hint === 'string' ? { hint: co.hint } : {}),
    user: {
      request: String(user.request),
      goal: String(user.goal),
      requiredFacts: (user.required_facts as string[] | undefined) ?? [],
      facts: ((user.facts as Table[] | undefined) ?? []).map((x) => ({ id: String(x.id), text: String(x.text), keywords: (x.keywords as string[] | undefined) ?? [] })),
    },
    difficulty: finiteNumber(co.difficulty, `${f}.difficulty`, unmapped) ?? 1,
    knobs: (co.knobs as Record<string, number> | undefined) ?? {},
    skills: (co.skills as string[] | undefined) ?? [],
    lineage: {
      parent: typeof lineage.parent === 'string' ? lineage.parent : null,
      operator: typeof lineage.operator === 'string' ? lineage.operator : null,
      generation: finiteNumber(lineage.generation, `${f}.lineage.generation`, unmapped) ?? 0,
    },
    provenance: { ...prov, ...(ctx.options.license ? { license: ctx.options.license } : {}) },
  };
}

const knownMetadata = ['author_name', 'author_email', 'difficulty', 'category', 'tags'];
const knownSections = ['version', 'schema_version', 'metadata', 'verifier', 'agent', 'environment', 'solution', 'task', 'source'];

/** A Harbor / Terminal-Bench 2.x task written by someone else. */
export function foreignTaskInput(ctx: HarborTaskContext): EnvironmentSpecInput | { reason: string } {
  const { instruction, unmapped, header } = ctx;
  if (instruction.trim().length === 0) return { reason: 'instruction.md is empty' };
  const meta = section(ctx.toml, 'metadata');
  const provenance: Record<string, string> = {};
  const author = [meta.author_name, meta.author_email ? `<${String(meta.author_email)}>` : undefined].filter((x) => typeof x === 'string').join(' ');
  if (author) provenance.author = cutNoted(author, 256, 'metadata.author_name', unmapped);
  provenance.source = `harbor:${ctx.dir}`.slice(0, 1024);
  if (ctx.options.license) provenance.license = ctx.options.license;
  const canary = findCanary([instruction, ctx.testSh, ctx.solveSh, ctx.dockerText]);
  if (canary) provenance.canary = canary;
  const words: Record<string, number> = { easy: 25, medium: 50, hard: 75 };
  const difficulty = typeof meta.difficulty === 'string' ? words[meta.difficulty.toLowerCase()] : finiteNumber(meta.difficulty, 'metadata.difficulty', unmapped);
  if (typeof meta.difficulty === 'string' && difficulty === undefined) unmapped.push(`metadata.difficulty = ${JSON.stringify(meta.difficulty)}: not easy / medium / hard; left at the default`);
  const tags = textListNoted(meta.tags, 'metadata.tags', unmapped, { maxItems: 32, maxLength: 64 });
  const category = typeof meta.category === 'string' ? meta.category.trim() : '';
  const family = category ? cutNoted(category, 64, 'metadata.category', unmapped) : 'harbor';
  for (const [k, v] of Object.entries(meta)) {
    if (knownMetadata.includes(k)) continue;
    header.push(`metadata.${k} = ${formatSourceValue(v)}`);
    unmapped.push(`metadata.${k}: no field in the environment spec; kept as a comment at the top of the file`);
  }
  for (const k of Object.keys(ctx.toml)) if (!knownSections.includes(k)) unmapped.push(`${k}: unknown task.toml section, ignored`);
  // The first paragraph that says something: headings and comment lines (a canary) are no request.
  const paragraphs = instruction.trim().split(/\n\s*\n/).map((p) => p.split('\n').filter((l) => !/^\s*(#|<!--)/.test(l)).join('\n').trim());
  const firstParagraph = cutNoted(paragraphs.find((p) => p.length > 0) ?? instruction.trim(), 16384, 'user.request (the instruction\'s first paragraph)', unmapped);
  unmapped.push('user side: Harbor tasks have no simulated user; user.request is the instruction\'s first paragraph and user.goal says the tests must pass (add hidden facts to make the user matter)');
  const task = section(ctx.toml, 'task');
  return {
    apiVersion: specApiVersion,
    kind: 'Environment',
    id: ctx.id,
    title: typeof task.name === 'string' ? cutNoted(task.name, 200, 'task.name', unmapped) : titleOf(instruction, ctx.name),
    family,
    instruction,
    sandbox: sandboxOf(ctx, false),
    verifier: verifierOf(ctx, false),
    oracle: oracleOf(ctx),
    user: { request: firstParagraph, goal: 'The task described in the instruction is done and the tests pass.' },
    ...(difficulty !== undefined ? { difficulty: clampNoted(difficulty, 0, 100, 'metadata.difficulty', unmapped) } : {}),
    skills: tags,
    provenance,
  };
}
