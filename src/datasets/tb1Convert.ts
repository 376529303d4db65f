import { stringify as stringifyToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';
import { FolderReadError, type SafeFolder } from '../files/safeFolder.js';

/** One file of a converted task folder; bytes, since a build context may hold binary files. */
export interface ConvertedFile {
  path: string;
  content: Buffer;
  mode: number;
}

export interface Tb1Conversion {
  files: ConvertedFile[];
  /** Fields and files of the source with no exact place in Harbor's layout: "field: why". */
  unmapped: string[];
}

/** Files of a TB1 task that are not part of its build context. */
const taskOnly = new Set(['task.yaml', 'solution.sh', 'solution.yaml', 'run-tests.sh', 'docker-compose.yaml', 'docker-compose.yml']);
const limits = { small: { maxBytes: 1024 * 1024, what: 'a task file' }, context: { maxBytes: 64 * 1024 * 1024, what: 'a build context file' } };

type Tb1Yaml = Record<string, unknown> & { instruction?: unknown; descriptions?: { key?: unknown; description?: unknown }[] };

/**
 * A Terminal-Bench 1 task (`task.yaml`, `Dockerfile`, `run-tests.sh`, `solution.sh` or `solution.yaml`, `tests/`,
 * optionally a `docker-compose.yaml` with the one `client` service) as a Harbor task folder: instruction.md,
 * task.toml, environment/ (the Dockerfile and its context), tests/ (the tests, run-tests.sh and a test.sh that runs
 * it the way TB1 did, with TEST_DIR=/tests, and writes Harbor's reward file), solution/solve.sh.
 * Read through the importers' safe folder reader: no link out of the task folder, bounded reads, UTF-8 text.
 */
export function convertTb1Task(folder: SafeFolder): Tb1Conversion | { reason: string } {
  const unmapped: string[] = [];
  let doc: Tb1Yaml;
  const yamlText = folder.readText('task.yaml', limits.small);
  try {
    doc = (parseYaml(yamlText) ?? {}) as Tb1Yaml;
  } catch (err) {
    if (err instanceof FolderReadError) throw err;
    const e = err as { linePos?: { line: number; col: number }[]; message?: string };
    const at = e.linePos?.[0] ? ` at line ${e.linePos[0].line}, column ${e.linePos[0].col}` : '';
    return { reason: `task.yaml does not parse${at}: ${String(e.message ?? err).split('\n')[0]}` };
  }
  const instruction = typeof doc.instruction === 'string' ? doc.instruction
    : doc.descriptions?.find((d) => d.key === 'base')?.description ?? doc.descriptions?.[0]?.description;
  if (typeof instruction !== 'string' || !instruction.trim()) return { reason: 'task.yaml has no instruction (nor a base description): there is nothing to tell the agent' };
  if (Array.isArray(doc.descriptions) && doc.descriptions.length > 1) unmapped.push(`descriptions: ${doc.descriptions.length} variants; only the "base" one became instruction.md`);
  if (!folder.has('Dockerfile')) return { reason: 'no Dockerfile: a Terminal-Bench 1 task builds its client image from one' };
  if (!folder.has('run-tests.sh')) return { reason: 'no run-tests.sh: nothing could check the agent\'s work' };
  const compose = composeProblem(folder);
  if (compose) return { reason: compose };

  const files: ConvertedFile[] = [];
  const text = (path: string, content: string, mode = 0o644): void => {
    files.push({ path, content: Buffer.from(content, 'utf8'), mode });
  };
  text('instruction.md', instruction.endsWith('\n') ? instruction : `${instruction}\n`);
  text('task.toml', taskToml(doc, unmapped));
  const listing = folder.listFiles('', { maxFiles: 5000 });
  unmapped.push(...listing.notes);
  for (const f of listing.files) {
    if (taskOnly.has(f.rel) || f.rel.startsWith('tests/')) continue;
    files.push({ path: `environment/${f.rel}`, content: folder.readBytes(f.rel, limits.context), mode: f.mode });
  }
  const tests = folder.listFiles('tests', { maxFiles: 1000 });
  unmapped.push(...tests.notes);
  for (const f of tests.files) files.push({ path: `tests/${f.rel}`, content: folder.readBytes(`tests/${f.rel}`, limits.context), mode: f.mode });
  files.push({ path: 'tests/run-tests.sh', content: folder.readBytes('run-tests.sh', limits.small), mode: 0o755 });
  // The canary GUID usually sits in a task.yaml comment, which no mapping keeps: carry it into test.sh.
  const canary = yamlText.split('\n').find((l) => /canary/i.test(l) && /[0-9a-f]{8}-[0-9a-f]{4}-/i.test(l));
  text('tests/test.sh', testSh(doc, unmapped, canary), 0o755);
  const solve = solution(folder, unmapped);
  if (solve !== undefined) text('solution/solve.sh', solve, 0o755);
  else unmapped.push('solution: neither solution.sh nor solution.yaml; the task has no oracle (it stays unvalidated)');
  return { files, unmapped };
}

/** A compose file may only describe the single `client` service built from the task's Dockerfile. */
function composeProblem(folder: SafeFolder): string | undefined {
  const name = ['docker-compose.yaml', 'docker-compose.yml'].find((n) => folder.has(n));
  if (!name) return undefined;
  let doc: { services?: Record<string, unknown> };
  try {
    doc = (parseYaml(folder.readText(name, limits.small)) ?? {}) as typeof doc;
  } catch (err) {
    if (err instanceof FolderReadError) throw err;
    return `${name} does not parse: ${String((err as Error).message).split('\n')[0]}`;
  }
  const services = Object.keys(doc.services ?? {});
  if (services.length > 1) return `${name} has ${services.length} services (${services.join(', ')}); multi-container tasks are not supported yet: a Coevolve sandbox is a single container with no network, so services that talk to each other cannot run in it`;
  return undefined;
}

function taskToml(doc: Tb1Yaml, unmapped: string[]): string {
  const metadata: Record<string, unknown> = {};
  for (const k of ['author_name', 'author_email', 'difficulty', 'category', 'expert_time_estimate_min', 'junior_time_estimate_min']) {
    if (typeof doc[k] === 'string' || typeof doc[k] === 'number') metadata[k] = doc[k];
  }
  if (Array.isArray(doc.tags)) metadata.tags = doc.tags.filter((t) => typeof t === 'string');
  const num = (k: string): number | undefined => (typeof doc[k] === 'number' && Number.isFinite(doc[k]) ? (doc[k] as number) : undefined);
  const out: Record<string, unknown> = { version: '1.0', metadata };
  const test = num('max_test_timeout_sec');
  const agent = num('max_agent_timeout_sec');
  if (test !== undefined) out.verifier = { timeout_sec: test };
  if (agent !== undefined) out.agent = { timeout_sec: agent };
  out.environment = { allow_internet: false };
  if (doc.run_tests_in_same_shell === true) unmapped.push('run_tests_in_same_shell = true: the tests run in a separate shell after the agent is done, as Harbor runs them');
  if (doc.parser_name !== undefined && doc.parser_name !== 'pytest') unmapped.push(`parser_name = ${JSON.stringify(doc.parser_name)}: only the pytest verdict is mapped (run-tests.sh's exit code decides)`);
  for (const k of ['disable_asciinema', 'estimated_duration_sec']) if (doc[k] !== undefined) unmapped.push(`${k}: no equivalent in a Harbor task`);
  const known = new Set(['instruction', 'descriptions', 'author_name', 'author_email', 'difficulty', 'category', 'tags', 'parser_name', 'max_agent_timeout_sec', 'max_test_timeout_sec', 'run_tests_in_same_shell', 'disable_asciinema', 'estimated_duration_sec', 'expert_time_estimate_min', 'junior_time_estimate_min']);
  for (const k of Object.keys(doc)) if (!known.has(k)) unmapped.push(`${k}: unknown task.yaml field, ignored`);
  return `# Converted by Coevolve from a Terminal-Bench 1 task (task.yaml).\n${stringifyToml(out)}\n`;
}

/** TB1 ran `bash $TEST_DIR/run-tests.sh` with the tests in $TEST_DIR and read pytest's verdict. */
function testSh(doc: Tb1Yaml, unmapped: string[], canary?: string): string {
  if (doc.parser_name === undefined || doc.parser_name === 'pytest') unmapped.push('parser_name = pytest: the verdict is run-tests.sh\'s exit code (pytest exits 0 only when every test passed)');
  return `#!/bin/bash
${canary ? `${canary.trim().startsWith('#') ? canary.trim() : `# ${canary.trim()}`}\n` : ''}# Terminal-Bench 1 tests as Terminal-Bench 1 ran them: run-tests.sh with the tests in TEST_DIR, from the workdir.
# Written by Coevolve's converter; the reward is 1 when run-tests.sh (pytest) exits 0, else 0.
export TEST_DIR=/tests
mkdir -p /logs/verifier
if bash /tests/run-tests.sh; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi
`;
}

/** solution.sh as it is, or solution.yaml's commands in order (keystroke details are not replayable). */
function solution(folder: SafeFolder, unmapped: string[]): string | undefined {
  if (folder.has('solution.sh')) return folder.readText('solution.sh', limits.small);
  if (!folder.has('solution.yaml')) return undefined;
  let steps: unknown;
  try {
    steps = parseYaml(folder.readText('solution.yaml', limits.small));
  } catch (err) {
    if (err instanceof FolderReadError) throw err;
    unmapped.push(`solution.yaml does not parse: ${String((err as Error).message).split('\n')[0]}`);
    return undefined;
  }
  if (!Array.isArray(steps)) {
    unmapped.push('solution.yaml is not a list of commands; no oracle');
    return undefined;
  }
  const lines = ['#!/bin/bash', '# The commands of solution.yaml, in order (converted by Coevolve).'];
  for (const [i, s] of steps.entries()) {
    const cmd = (s as { command?: unknown }).command;
    if (typeof cmd !== 'string') {
      unmapped.push(`solution.yaml[${i}]: no command string; skipped`);
      continue;
    }
    if ((s as { block?: unknown }).block === false || (s as { append_enter?: unknown }).append_enter === false) unmapped.push(`solution.yaml[${i}]: keystrokes sent without waiting (block/append_enter false) run here as a plain command line`);
    lines.push(cmd);
  }
  return `${lines.join('\n')}\n`;
}
