import { closest, distance } from 'fastest-levenshtein';
import type { z } from 'zod';
import { specApiVersion } from './common.js';
import { formatPath, type SpecPath } from './problems.js';
import { defOf, descriptionOf, isAbsent, literalValues, objectKeys, schemaAt, unwrap, valueAt } from './schemaAt.js';

/** Which part of the YAML a message is about: the value, the key (unknown key), or the place a field is missing. */
export type Anchor = 'value' | 'key' | 'missing';

export interface IssueMessage {
  path: SpecPath;
  anchor: Anchor;
  message: string;
}

/**
 * Turns one zod issue into messages written for people: what is wrong, what was expected and what was found,
 * with the closest valid name when a key or value looks like a typo. One issue can give several messages
 * (one per unknown key).
 */
export function describeIssue(issue: z.core.$ZodIssue, root: z.ZodType, input: unknown): IssueMessage[] {
  const path = issue.path as SpecPath;
  const value = valueAt(input, path);
  const schema = schemaAt(root, path, input);
  // A required field that is not there at all fails as a wrong type or a wrong literal; either way, say it is missing.
  if (issue.code !== 'unrecognized_keys' && issue.code !== 'custom' && isAbsent(input, path)) return [located(path, missingMessage(path, schema), 'missing')];
  if (issue.code === 'unrecognized_keys') return unknownKeyMessages(issue.keys, path, objectKeys(schema, value));
  if (issue.code === 'invalid_value' && path.length === 1 && path[0] === 'apiVersion') {
    return [{ path, anchor: 'value', message: `unsupported apiVersion ${show(value)}; this version of coevolve reads "${specApiVersion}"` }];
  }
  const { message, anchor } = issueText(issue, path, schema, value);
  return [located(path, message, anchor)];
}

/**
 * A message about a value names its field, so it reads on its own (CLI output, SpecError); messages about keys and
 * missing fields name it already.
 */
function located(path: SpecPath, message: string, anchor: Anchor): IssueMessage {
  return { path, anchor, message: anchor === 'value' && path.length > 0 && !namesField(message, path) ? `${formatPath(path)}: ${message}` : message };
}

/** One message per unknown key, each on the key, with the closest allowed name when it looks like a typo. */
function unknownKeyMessages(keys: readonly string[], path: SpecPath, allowed: string[]): IssueMessage[] {
  const where = path.length > 0 ? ` in ${formatPath(path)}` : ' at the top level';
  return keys.map((key) => ({
    path: [...path, key],
    anchor: 'key' as const,
    message: `unknown key "${key}"${where}${keySuggestion(key, allowed)}`,
  }));
}

/** What is wrong with the found value, in words: what was expected and what was found. */
function issueText(issue: z.core.$ZodIssue, path: SpecPath, schema: z.ZodType | undefined, value: unknown): { message: string; anchor: Anchor } {
  const about = (message: string): { message: string; anchor: Anchor } => ({ message, anchor: 'value' });
  switch (issue.code) {
    case 'invalid_type':
      return about(typeMessage(issue, schema, value));
    case 'too_big':
    case 'too_small':
      return about(rangeMessage(issue, schema, value));
    case 'invalid_value':
      return about(`expected ${oneOf(issue.values)}, got ${show(value)}${suggestion(value, issue.values)}`);
    case 'invalid_format':
      return about(formatMessage(issue, value));
    case 'invalid_key':
      return { message: invalidKeyMessage(issue, path), anchor: 'key' };
    case 'invalid_union':
      return unionText(issue, path, schema, value);
    case 'custom':
      return about(customMessage(issue, value));
    default:
      return about(issue.message);
  }
}

/** A wrong type, with a hint to quote a number or boolean that was meant as text. */
function typeMessage(issue: z.core.$ZodIssueInvalidType, schema: z.ZodType | undefined, value: unknown): string {
  const expected = schema ? expectation(schema) : `a ${issue.expected}`;
  const msg = `expected ${expected}, got ${show(value)}`;
  if (issue.expected === 'string' && (typeof value === 'number' || typeof value === 'boolean')) {
    return `${msg}; put it in quotes ("${String(value)}") if you mean the text`;
  }
  return msg;
}

/** A text that is not of its format: the schema's own words when it has them, an example for a URL. */
function formatMessage(issue: z.core.$ZodIssueInvalidStringFormat, value: unknown): string {
  const custom = !/^Invalid\b/.test(issue.message);
  if (custom) return `${issue.message}, got ${show(value)}`;
  if (issue.format === 'url') return `expected a URL such as "http://127.0.0.1:8000/v1", got ${show(value)}`;
  return `${show(value)} is not a valid ${issue.format}`;
}

function invalidKeyMessage(issue: z.core.$ZodIssueInvalidKey, path: SpecPath): string {
  const key = String(path[path.length - 1]);
  const inner = issue.issues[0];
  const why = inner && !/^Invalid\b/.test(inner.message) ? `: ${inner.message}` : '';
  return `invalid key "${key}"${why}`;
}

/** A value that fits no form: for a tagged union, the tags it accepts (or that the tag is missing). */
function unionText(issue: z.core.$ZodIssueInvalidUnion, path: SpecPath, schema: z.ZodType | undefined, value: unknown): { message: string; anchor: Anchor } {
  if ('discriminator' in issue && typeof issue.discriminator === 'string') {
    const options = (issue as { options?: unknown[] }).options ?? [];
    if (value === undefined) return { message: missingMessage(path, schema), anchor: 'missing' };
    return { message: `expected ${oneOf(options)}, got ${show(value)}${suggestion(value, options)}`, anchor: 'value' };
  }
  return { message: `expected ${schema ? expectation(schema) : 'another form'}, got ${show(value)}`, anchor: 'value' };
}

/** A refinement's own message, with the found value added unless the message already says it. */
function customMessage(issue: z.core.$ZodIssueCustom, value: unknown): string {
  const shown = show(value);
  const mentions = typeof value === 'string' || typeof value === 'number' ? issue.message.includes(String(value)) : true;
  return mentions ? issue.message : `${issue.message}, got ${shown}`;
}

/** True when a (custom) message already starts with the field it is about, e.g. "band.low must not exceed...". */
function namesField(message: string, path: SpecPath): boolean {
  return message.startsWith(formatPath(path)) || message.startsWith(`${String(path[path.length - 1])} `);
}

function missingMessage(path: SpecPath, schema: z.ZodType | undefined): string {
  const name = String(path[path.length - 1] ?? '');
  const desc = schema ? descriptionOf(schema) : undefined;
  const where = path.length > 1 ? ` in ${formatPath(path.slice(0, -1))}` : '';
  return `missing required field "${name}"${where}${desc ? ` — ${lowerFirst(desc)}` : ''}`;
}

function rangeMessage(issue: z.core.$ZodIssueTooBig | z.core.$ZodIssueTooSmall, schema: z.ZodType | undefined, value: unknown): string {
  const limit = Number('maximum' in issue ? issue.maximum : issue.minimum);
  switch (issue.origin) {
    case 'number':
    case 'int':
      return `expected ${schema ? expectation(schema) : 'a number'}, got ${show(value)}`;
    case 'string': {
      const len = typeof value === 'string' ? value.length : 0;
      if (issue.code === 'too_small') return limit <= 1 ? 'expected non-empty text' : `text is too short: ${len} characters, at least ${limit} expected`;
      return `text is too long: ${len} characters, at most ${limit} allowed`;
    }
    case 'array': {
      const n = Array.isArray(value) ? value.length : 0;
      if (issue.code === 'too_small') return `expected at least ${limit} ${limit === 1 ? 'entry' : 'entries'}, got ${n}`;
      return `too many entries: ${n}, at most ${limit} allowed`;
    }
    default:
      return issue.message;
  }
}

/** What a schema accepts, in words: "an integer between 16 and 65536", "one of "calm", "frustrated"". */
export function expectation(schema: z.ZodType): string {
  const s = unwrap(schema);
  const def = defOf(s);
  switch (def.type) {
    case 'number': {
      const n = s as z.ZodNumber;
      const kind = n.isInt ? 'an integer' : 'a number';
      const min = bound(n.minValue), max = bound(n.maxValue);
      if (min !== undefined && max !== undefined) return `${kind} between ${min} and ${max}`;
      if (min !== undefined) return `${kind} of at least ${min}`;
      if (max !== undefined) return `${kind} of at most ${max}`;
      return kind;
    }
    case 'string':
      return 'text';
    case 'boolean':
      return 'true or false';
    case 'enum':
    case 'literal':
      return oneOf(literalValues(s));
    case 'object':
      return 'a mapping (indented "key: value" lines)';
    case 'record':
      return 'a mapping of names to values';
    case 'array':
      return 'a list (lines starting with "- ")';
    case 'union': {
      const tag = def.discriminator;
      if (tag) return `a mapping with ${tag}: ${(def.options ?? []).flatMap((o) => literalValues(defOf(unwrap(o)).shape?.[tag])).join(' or ')}`;
      return (def.options ?? []).map(expectation).join(' or ');
    }
    case 'null':
      return 'nothing (null)';
    default:
      return `a ${def.type}`;
  }
}

function bound(n: number | null | undefined): number | undefined {
  return n === null || n === undefined || !Number.isFinite(n) || Math.abs(n) >= Number.MAX_SAFE_INTEGER ? undefined : n;
}

function oneOf(values: readonly unknown[]): string {
  const shown = values.map((v) => JSON.stringify(v));
  if (shown.length === 1) return shown[0]!;
  return `one of ${shown.join(', ')}`;
}

/** How a found value reads in a message: strings quoted (and cut short), collections named. */
export function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'an empty value';
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return String(value);
}

function suggestion(value: unknown, candidates: readonly unknown[]): string {
  if (typeof value !== 'string') return '';
  const names = candidates.filter((c): c is string => typeof c === 'string');
  const best = near(value, names);
  return best ? `; did you mean "${best}"?` : '';
}

function keySuggestion(key: string, allowed: string[]): string {
  if (allowed.length === 0) return '';
  const best = near(key, allowed);
  if (best) return `; did you mean "${best}"?`;
  return `; allowed keys: ${allowed.join(', ')}`;
}

/** The closest name, if it is close enough to be a plausible typo (case, a few letters, or a prefix). */
function near(word: string, names: readonly string[]): string | undefined {
  if (names.length === 0) return undefined;
  const lower = word.toLowerCase();
  const byCase = names.find((n) => n.toLowerCase() === lower);
  if (byCase) return byCase;
  const best = closest(lower, names.map((n) => n.toLowerCase()));
  const original = names.find((n) => n.toLowerCase() === best)!;
  const d = distance(lower, best);
  if (word.length >= 2 && d <= (word.length >= 4 ? 2 : 1)) return original;
  // Dropped letters ("timout" for "timeoutSec") and abbreviations read as typos too.
  if (word.length >= 3) return names.find((n) => isSubsequence(lower, n.toLowerCase()));
  return undefined;
}

function isSubsequence(short: string, long: string): boolean {
  let i = 0;
  for (const ch of long) if (ch === short[i]) i++;
  return i === short.length;
}

function lowerFirst(s: string): string {
  return /^[A-Z](?![A-Z])/.test(s) ? s[0]!.toLowerCase() + s.slice(1) : s;
}
