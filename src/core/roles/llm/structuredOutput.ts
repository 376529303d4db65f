import { jsonrepair } from 'jsonrepair';
import { z } from 'zod';
import type { Cancellation } from '../../ports/cancellation.js';
import { addUsage, zeroUsage } from '../../ports/model.js';
import type { ChatMessage, ChatModel, Usage } from '../../ports/model.js';

export type StructuredResult<T> =
  | { ok: true; value: T; usage: Usage; repairs: number }
  | { ok: false; reason: string; problems: string[]; usage: Usage; repairs: number };

export interface StructuredRequest<T> {
  messages: ChatMessage[];
  schema: z.ZodType<T>;
  /** Name sent with response_format (letters, digits, "_", "-"). */
  schemaName: string;
  /** Invalid answers are sent back with their problems this many times before giving up. */
  maxRepairs: number;
  /** Runs on the parsed JSON before zod, e.g. to fill in fields the caller owns (ids, lineage). */
  prepare?: (json: unknown) => unknown;
  /**
   * Replaces the zod check with the caller's validator (the spec validator gives better messages than raw zod
   * issues); `prepare` and `check` still apply around it.
   */
  parse?: (json: unknown) => Validated<T>;
  /** Sent as response_format instead of the schema derived from `schema`. */
  jsonSchema?: Record<string, unknown>;
  /** Problems zod cannot see (an unchanged child, a rule across objects), as "path: message" lines. */
  check?: (value: T) => string[];
  temperature?: number;
  maxTokens?: number;
  seed?: number;
  signal?: Cancellation;
}

const jsonSchemas = new WeakMap<z.ZodType, Record<string, unknown>>();

/** The JSON Schema sent as response_format, from the same zod source the answer is validated with. */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  let out = jsonSchemas.get(schema);
  if (!out) {
    const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    out = rest;
    jsonSchemas.set(schema, out);
  }
  return out;
}

/**
 * Asks for JSON matching `schema`, validates it with zod and, when it is invalid, sends the positioned problems back
 * for another try. Model failures (network, timeouts) are thrown, not turned into a result: they are not the
 * model's answer.
 */
export async function completeStructured<T>(model: ChatModel, req: StructuredRequest<T>): Promise<StructuredResult<T>> {
  const messages = req.messages.slice();
  let usage = zeroUsage();
  let problems: string[] = [];
  for (let attempt = 0; attempt <= req.maxRepairs; attempt++) {
    const res = await model.complete({
      messages,
      responseSchema: { name: req.schemaName, schema: req.jsonSchema ?? jsonSchemaOf(req.schema) },
      ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
      ...(req.maxTokens !== undefined ? { maxTokens: req.maxTokens } : {}),
      ...(req.seed !== undefined ? { seed: req.seed } : {}),
      ...(req.signal ? { signal: req.signal } : {}),
    });
    usage = addUsage(usage, res.usage);
    const content = res.message.content ?? '';
    const checked = validate(content, req.parse ?? req.schema, req.check, req.prepare);
    if (checked.ok) return { ok: true, value: checked.value, usage, repairs: attempt };
    problems = checked.problems;
    messages.push({ role: 'assistant', content });
    messages.push({ role: 'user', content: repairPrompt(problems) });
  }
  const shown = problems.slice(0, 8).join('; ');
  const more = problems.length > 8 ? ` (and ${problems.length - 8} more)` : '';
  return { ok: false, reason: `output still invalid after ${req.maxRepairs} repair${req.maxRepairs === 1 ? '' : 's'}: ${shown}${more}`, problems, usage, repairs: req.maxRepairs };
}

export function repairPrompt(problems: string[]): string {
  return [
    'Your answer is not valid. Problems (path: message):',
    ...problems.map((p) => `- ${p}`),
    'Reply with the corrected JSON object only, no prose and no code fence.',
  ].join('\n');
}

export type Validated<T> = { ok: true; value: T } | { ok: false; problems: string[] };

export function validate<T>(
  content: string,
  schema: z.ZodType<T> | ((json: unknown) => Validated<T>),
  check?: (value: T) => string[],
  prepare?: (json: unknown) => unknown,
): Validated<T> {
  const json = extractJson(content);
  if (!json.ok) return { ok: false, problems: [`(root): ${json.error}`] };
  const input = prepare ? prepare(json.value) : json.value;
  let parsed: Validated<T>;
  if (typeof schema === 'function') {
    parsed = schema(input);
  } else {
    const r = schema.safeParse(input);
    parsed = r.success ? { ok: true, value: r.data } : { ok: false, problems: r.error.issues.map((i) => `${formatPath(i.path)}: ${i.message}`) };
  }
  if (!parsed.ok) return parsed;
  const extra = check?.(parsed.value) ?? [];
  return extra.length > 0 ? { ok: false, problems: extra } : parsed;
}

/** Tolerates a code fence or a sentence around the object, which models add despite instructions. */
export function extractJson(content: string): { ok: true; value: unknown } | { ok: false; error: string } {
  const text = content.trim();
  if (text === '') return { ok: false, error: 'the answer is empty; a JSON object was expected' };
  const fenced = /```[a-zA-Z0-9_-]*\s*\n?([\s\S]*?)\n?\s*```/.exec(text);
  let body = fenced ? (fenced[1] as string).trim() : text;
  if (!body.startsWith('{')) {
    const start = body.indexOf('{');
    const end = body.lastIndexOf('}');
    if (start < 0 || end <= start) return { ok: false, error: 'no JSON object found in the answer' };
    body = body.slice(start, end + 1);
  }
  try {
    return { ok: true, value: JSON.parse(body) };
  } catch {
    try {
      return { ok: true, value: JSON.parse(jsonrepair(body)) };
    } catch (err) {
      return { ok: false, error: `the answer is not valid JSON (${err instanceof Error ? err.message : String(err)})` };
    }
  }
}

/** `user.facts[0].id` style, as in the spec editor's diagnostics. */
export function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(root)';
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}
