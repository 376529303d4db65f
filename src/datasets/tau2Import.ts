import { basename, dirname, resolve } from 'node:path';
import { specApiVersion } from '../core/spec/common.js';
import { userProfileSchema, type UserProfile } from '../core/spec/user.js';
import { toolVersion } from '../core/version.js';
import { FolderReadError, SafeFolder } from '../files/safeFolder.js';
import { idFromName } from './idFromName.js';
import type { ImportedItem, ImportResult } from './importReport.js';

export interface Tau2ImportOptions {
  /** Domain when the tasks do not name one (airline, retail, telecom...); else taken from the file's folder. */
  domain?: string;
  license?: string;
  now?: Date;
}

type Table = Record<string, unknown>;

/**
 * tau2-bench tasks (data/tau2/domains/<domain>/tasks.json: a list of tasks, or one task per file) as simulated-user
 * profiles: persona -> persona, known_info / unknown_info -> facts, reason_for_call + task_instructions -> goal.
 * The parts that grade the agent against tau2's databases have no place in a user profile and are reported.
 */
export function importTau2Tasks(files: readonly string[], options: Tau2ImportOptions = {}): ImportResult<UserProfile> {
  const result: ImportResult<UserProfile> = { imported: [], skipped: [] };
  const ids = new Set<string>();
  for (const f of files) {
    const file = resolve(f);
    const text = readTasksFile(file);
    if (typeof text !== 'string') {
      result.skipped.push({ source: file, reason: text.reason });
      continue;
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (err) {
      result.skipped.push({ source: file, reason: `is not valid JSON (${err instanceof Error ? err.message : String(err)})` });
      continue;
    }
    const tasks = Array.isArray(data) ? data : isTable(data) && Array.isArray(data.tasks) ? data.tasks : isTable(data) && 'user_scenario' in data ? [data] : undefined;
    if (!tasks) {
      result.skipped.push({ source: file, reason: 'holds neither a list of tau2 tasks nor one task (expected [ {id, user_scenario, ...}, ... ])' });
      continue;
    }
    tasks.forEach((task: unknown, i: number) => {
      const source = `${file}#${isTable(task) && (typeof task.id === 'string' || typeof task.id === 'number') ? String(task.id) : `[${i}]`}`;
      try {
        const r = importTau2Task(task, file, i, options);
        if ('reason' in r) {
          result.skipped.push({ source, reason: r.reason });
          return;
        }
        if (ids.has(r.id)) {
          result.skipped.push({ source, reason: `its id maps to "${r.id}", already taken by an earlier task in this import` });
          return;
        }
        ids.add(r.id);
        result.imported.push({ ...r, source });
      } catch (err) {
        result.skipped.push({ source, reason: `could not be mapped: ${err instanceof Error ? err.message : String(err)}` });
      }
    });
  }
  return result;
}

/** The largest tasks file read (tau2's biggest domain file is a few MiB). */
export const maxTau2FileBytes = 256 * 1024 * 1024;

/**
 * A tasks file under the import rules: its folder is the boundary, so a link is read only when it resolves
 * inside that folder; regular files only, capped, UTF-8 without NUL bytes.
 */
function readTasksFile(file: string): string | { reason: string } {
  let folder: SafeFolder;
  try {
    folder = SafeFolder.open(dirname(file));
  } catch {
    return { reason: 'does not exist' };
  }
  const entry = folder.entry(basename(file));
  if (entry.kind === 'missing') return { reason: 'does not exist' };
  if (entry.kind === 'dir') return { reason: 'is a folder; pass the tasks JSON file (e.g. data/tau2/domains/airline/tasks.json)' };
  try {
    return folder.readText(basename(file), { maxBytes: maxTau2FileBytes, what: 'a tasks file' });
  } catch (err) {
    if (err instanceof FolderReadError) return { reason: err.message };
    throw err;
  }
}

function isTable(v: unknown): v is Table {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim().length > 0 ? v.trim() : undefined;
}

/** Sentences of a tau2 info paragraph; each becomes one fact. */
function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+(?=[A-Z"'(])|\n+/)
    .map((s) => s.trim().replace(/^[-*•]\s*/, ''))
    .filter((s) => s.length > 0);
}

/** tau2 speaks to the simulator in the second person; a user states facts in the first. */
function firstPerson(sentence: string): string {
  return sentence
    .replace(/^You are\b/, 'I am')
    .replace(/^You're\b/, "I'm")
    .replace(/^You have\b/, 'I have')
    .replace(/^You do not\b/, 'I do not')
    .replace(/^You don't\b/, "I don't")
    .replace(/^You\b/, 'I')
    // possessives always refer to the user; "you" as an object may not, so it stays
    .replace(/\bYour\b/g, 'My')
    .replace(/\byour\b/g, 'my');
}

const stopwords = new Set(['that', 'this', 'with', 'your', 'have', 'from', 'they', 'will', 'what', 'when', 'which', 'would', 'there', 'their', 'about', 'been', 'were', 'does', 'remember', 'know', 'want']);

function keywordsOf(sentence: string): string[] {
  const words = sentence.toLowerCase().match(/[a-z][a-z0-9_-]{3,}/g) ?? [];
  return [...new Set(words.filter((w) => !stopwords.has(w)))].slice(0, 8).map((w) => w.slice(0, 64));
}

function clip(text: string, max: number, field: string, unmapped: string[]): string {
  if (text.length <= max) return text;
  unmapped.push(`${field}: ${text.length} characters, cut to the spec's ${max}`);
  return text.slice(0, max);
}

function importTau2Task(task: unknown, file: string, index: number, options: Tau2ImportOptions): Omit<ImportedItem<UserProfile>, 'source'> | { reason: string } {
  const parts = scenarioOf(task, index);
  if ('reason' in parts) return parts;
  const { task: t, rawId, scenario, instr } = parts;

  // Every part of the task that has no place in the profile is noted here, in the order found.
  const unmapped: string[] = [];
  const domain = (isTable(instr) ? str(instr.domain) : undefined) ?? options.domain ?? basename(dirname(file));
  const id = idFromName(`tau2-${domain}-${rawId}`, `tau2-task-${index}`);
  const request = goalAndFacts(instr, unmapped);
  if ('reason' in request) return request;
  const { goal, nameSource, facts } = request;
  const persona = personaOf(str(scenario.persona), nameSource, domain, rawId, unmapped);
  const header = headerOf(t, rawId, file, options);
  noteUnmappedParts(t, facts, unmapped);

  const provenance: Record<string, string> = { source: `tau2:${file}#${rawId}`.slice(0, 1024) };
  if (options.license) provenance.license = options.license;
  const document = {
    apiVersion: specApiVersion,
    kind: 'User',
    id,
    persona,
    facts,
    goal: { statement: clip(goal, 4096, 'goal (reason_for_call + task_instructions)', unmapped), requires: facts.filter((f) => f.id.startsWith('known-')).map((f) => f.id) },
    provenance,
  };
  const parsed = userProfileSchema.safeParse(document);
  if (!parsed.success) {
    return { reason: `does not make a valid user profile: ${parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}` };
  }
  if (unmapped.length > 0) header.push('Not mapped:', ...unmapped.map((u) => `  - ${u}`));
  return { id, spec: parsed.data, document, header, unmapped };
}

interface Fact { id: string; text: string; keywords: string[] }

/** The parts a task must have to make a user: an id and a user scenario with instructions (text or an object). */
function scenarioOf(task: unknown, index: number): { task: Table; rawId: string; scenario: Table; instr: string | Table } | { reason: string } {
  if (!isTable(task)) return { reason: `tasks[${index}] is not an object` };
  const rawId = typeof task.id === 'string' || typeof task.id === 'number' ? String(task.id) : undefined;
  if (rawId === undefined) return { reason: `tasks[${index}] has no "id"` };
  const scenario = task.user_scenario;
  if (!isTable(scenario)) return { reason: 'user_scenario is missing or not an object: there is no user to import' };
  const instr = scenario.instructions;
  if (instr === undefined || instr === null) return { reason: 'user_scenario.instructions is missing' };
  if (!(typeof instr === 'string' || isTable(instr))) return { reason: 'user_scenario.instructions is neither text nor an object' };
  return { task, rawId, scenario, instr };
}

/**
 * The user's goal and facts from the instructions: free text is the goal as it is (no facts); an object's reason for
 * the call and task instructions make the goal, and each known / unknown info sentence one fact (at most 64).
 * nameSource is the text the user's name is looked for in.
 */
function goalAndFacts(instr: string | Table, unmapped: string[]): { goal: string; nameSource: string; facts: Fact[] } | { reason: string } {
  if (typeof instr === 'string') {
    unmapped.push('user_scenario.instructions is free text: no known_info / unknown_info to turn into facts; it became the goal');
    return { goal: instr, nameSource: instr, facts: [] };
  }
  const reason = str(instr.reason_for_call);
  const todo = str(instr.task_instructions);
  if (!reason && !todo) return { reason: 'user_scenario.instructions has neither reason_for_call nor task_instructions: no goal to import' };
  const goal = [reason, todo].filter(Boolean).join('\n\n');
  const known = str(instr.known_info);
  const unknown = str(instr.unknown_info);
  const facts: Fact[] = [];
  sentences(known ?? '').forEach((s, i) => facts.push({ id: `known-${i + 1}`, text: clip(firstPerson(s), 4096, `known_info sentence ${i + 1}`, unmapped), keywords: keywordsOf(s) }));
  sentences(unknown ?? '').forEach((s, i) => facts.push({ id: `unknown-${i + 1}`, text: clip(firstPerson(s), 4096, `unknown_info sentence ${i + 1}`, unmapped), keywords: keywordsOf(s) }));
  if (facts.length > 64) {
    unmapped.push(`known_info / unknown_info: ${facts.length} sentences, the spec keeps 64 facts`);
    facts.length = 64;
  }
  return { goal, nameSource: known ?? '', facts };
}

/** The profile's persona: a name found in the text (else a made-up one), an expertise the persona text implies, a background. */
function personaOf(persona: string | undefined, nameSource: string, domain: string, rawId: string, unmapped: string[]): { name: string; background: string; expertise?: 'novice' | 'expert' } {
  const name = /\b(?:You are|My name is|Your name is|I am)\s+([A-Z][a-z]+(?:\s+[A-Z][a-z]+){0,2})/.exec(nameSource)?.[1] ?? `${domain} customer ${rawId}`;
  // "not very tech-savvy" must read as novice, so the negative pattern is tried first.
  const expertise = persona && /\b(novice|beginner|not (?:very )?tech|unfamiliar)/i.test(persona) ? 'novice' : persona && /\b(expert|advanced|tech-savvy|engineer)\b/i.test(persona) ? 'expert' : undefined;
  const background = clip([persona, `A customer in the ${domain} domain (tau2-bench task ${rawId}).`].filter(Boolean).join('\n\n'), 4096, 'user_scenario.persona', unmapped);
  return { name: name.slice(0, 128), background, ...(expertise ? { expertise } : {}) };
}

/** The header comment of the written profile: where it came from, and the task's description in short. */
function headerOf(task: Table, rawId: string, file: string, options: Tau2ImportOptions): string[] {
  const header = [
    `Imported from tau2-bench task ${rawId} in ${file}`,
    `by Coevolve ${toolVersion} on ${(options.now ?? new Date()).toISOString().slice(0, 10)}.`,
  ];
  const description = task.description;
  if (isTable(description)) {
    for (const k of ['purpose', 'relevant_policies', 'notes'] as const) {
      const v = str(description[k]);
      if (v) header.push(`${k}: ${v.replace(/\s+/g, ' ').slice(0, 400)}`);
    }
  }
  return header;
}

/** Notes the parts of a task a user profile cannot hold (its grading, its domain state and tools) and how facts were made. */
function noteUnmappedParts(task: Table, facts: Fact[], unmapped: string[]): void {
  const criteria = task.evaluation_criteria;
  if (isTable(criteria)) {
    const parts = ['actions', 'env_assertions', 'communicate_info', 'nl_assertions'].filter((k) => Array.isArray(criteria[k]) && (criteria[k] as unknown[]).length > 0);
    if (parts.length > 0) unmapped.push(`evaluation_criteria (${parts.join(', ')}): grades the agent against tau2's domain database; a user profile has no grader (pair the user with an environment whose verifier checks the outcome)`);
  }
  for (const k of ['initial_state', 'user_tools', 'ticket', 'required_documents']) {
    if (task[k] !== undefined && task[k] !== null) unmapped.push(`${k}: tau2 domain state and tools have no equivalent in a user profile`);
  }
  if (facts.length > 0) unmapped.push('known_info / unknown_info: split into one fact per sentence and turned to the first person; keywords are the sentence\'s longer words');
}
