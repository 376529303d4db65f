import { closest } from 'fastest-levenshtein';
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, visit, type Document } from 'yaml';
import { specApiVersion } from './common.js';
import { describeIssue } from './issueMessages.js';
import { isSpecKind, kindFromFileName, specKindInfo, specKinds, type AnySpec, type SpecKind } from './kinds.js';
import { compareProblems, problemAt, startOfFile, type Problem, type SpecPath, type TextRange } from './problems.js';
import { SpecSourceMap } from './sourceMap.js';
import { describeYamlError } from './yamlErrors.js';
import type { EnvironmentSpec } from './environment.js';
import { verifierLayoutWarnings } from './verifierLayout.js';

/** Spec files larger than this are refused before parsing: big fixtures belong in setup commands that generate them. */
export const maxSpecFileBytes = 4 * 1024 * 1024;

export interface ParsedSpec {
  file: string;
  /** The kind, from the `kind` argument, the file name or the `kind:` field; undefined when none of them says. */
  kind?: SpecKind;
  /** The typed spec with defaults applied; present only when there are no errors (warnings allowed). */
  spec?: AnySpec;
  problems: Problem[];
  /** Where a path is in the text, for rules that look across files (duplicate ids, dangling paths). */
  locate(path: SpecPath, part?: 'value' | 'key'): TextRange;
}

/**
 * Parses one spec file's text into a typed spec and positioned problems. Never throws: every fault in the input —
 * YAML syntax, wrong type, unknown key, missing field, bad value, cross-field rule — comes back as a Problem
 * covering the offending node.
 */
export function parseSpecText(text: string, file: string, kind?: SpecKind): ParsedSpec {
  const problems: Problem[] = [];
  const unreadable = textFault(text);
  if (unreadable) {
    return { file, ...(kind ? { kind } : {}), problems: [problemAt(file, unreadable.range, 'error', unreadable.message)], locate: () => startOfFile };
  }

  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const map = new SpecSourceMap(doc, lineCounter, text);
  const locate = (path: SpecPath, part: 'value' | 'key' = 'value'): TextRange => (part === 'key' ? map.key(path) : map.value(path));
  const result: ParsedSpec = { file, problems, locate };
  const add = (range: TextRange, severity: Problem['severity'], message: string, path: SpecPath = []): void => {
    problems.push(problemAt(file, range, severity, message, path));
  };

  addYamlProblems(doc, lineCounter, map, text, add);
  if (doc.errors.length > 0) return finish(result, kind);
  if (!topLevelIsMapping(doc, file, kind, map, add)) return finish(result, kind);
  if (!structureProblems(doc, map, add)) return finish(result, kind);

  const resolved = resolveKind(doc, file, kind, map, add);
  if (!resolved) return finish(result, kind);
  result.kind = resolved;

  let input: unknown;
  try {
    input = doc.toJS({ maxAliasCount: 1000 });
  } catch (err) {
    // Alias bombs and similar: the yaml package refuses them while building values.
    add(startOfFile, 'error', `cannot build the spec: ${err instanceof Error ? err.message : String(err)}`);
    return finish(result, resolved);
  }
  checkAgainstSchema(result, resolved, input, map, add);
  return finish(result, resolved);
}

/**
 * What makes a text no spec at all, before any parsing: too large, or not text (a control character or bytes that
 * were not UTF-8). Such a file gets this one problem and nothing else.
 */
function textFault(text: string): { message: string; range: TextRange } | undefined {
  const bytes = utf8Length(text);
  if (bytes > maxSpecFileBytes) return { message: tooLargeMessage(bytes), range: startOfFile };
  const binary = firstNonText(text);
  if (!binary) return undefined;
  const what = binary.char === '\uFFFD' ? 'bytes that are not valid UTF-8' : `a control character (U+${binary.char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')})`;
  return { message: `this does not look like a text file: it contains ${what}; a spec is UTF-8 YAML text`, range: binary.range };
}

/** The yaml package's errors and warnings as problems. */
function addYamlProblems(doc: Document, lineCounter: LineCounter, map: SpecSourceMap, text: string, add: Add): void {
  // One syntax error per line: the yaml package often reports a cascade after the first fault on a line.
  const linesWithErrors = new Set<number>();
  for (const err of doc.errors) {
    const line = lineCounter.linePos(err.pos[0]).line;
    if (linesWithErrors.has(line)) continue;
    linesWithErrors.add(line);
    const m = describeYamlError(err, doc, map, text);
    add(m.range, 'error', m.message);
  }
  for (const warn of doc.warnings) {
    const m = describeYamlError(warn, doc, map, text);
    add(m.range, 'warning', m.message);
  }
}

/** A spec is a mapping of fields; an empty file, a list, an alias or a single value is reported. Returns false then. */
function topLevelIsMapping(doc: Document, file: string, kind: SpecKind | undefined, map: SpecSourceMap, add: Add): boolean {
  if (doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null)) {
    const example = kindFromFileName(file) ?? kind ?? 'Environment';
    add(startOfFile, 'error', `file is empty; a spec starts with "apiVersion: ${specApiVersion}" and "kind: ${example}"`);
    return false;
  }
  if (!isMap(doc.contents)) {
    const got = isSeq(doc.contents) ? 'a list' : isAlias(doc.contents) ? 'an alias' : 'a single value';
    add(map.nodeRange(doc.contents) ?? startOfFile, 'error', `expected a mapping of fields ("key: value" lines) at the top level, got ${got}`);
    return false;
  }
  return true;
}

/**
 * Checks the values against the kind's schema: the typed spec (and an environment's verifier-layout warnings) when they
 * fit, else one problem per issue, placed on the key, the value or where a missing field belongs. A wrong `kind:` is
 * reported once: by resolveKind when it already said so.
 */
function checkAgainstSchema(result: ParsedSpec, kind: SpecKind, input: unknown, map: SpecSourceMap, add: Add): void {
  const schema = specKindInfo[kind].schema;
  const parsed = schema.safeParse(input);
  if (parsed.success) {
    result.spec = parsed.data as AnySpec;
    if (kind === 'Environment') {
      for (const w of verifierLayoutWarnings(parsed.data as EnvironmentSpec)) add(map.value(w.path), 'warning', w.message, w.path);
    }
    return;
  }
  const kindReported = result.problems.some((p) => p.path.length === 1 && p.path[0] === 'kind');
  for (const issue of parsed.error.issues) {
    for (const m of describeIssue(issue, schema, input)) {
      if (kindReported && m.path.length === 1 && m.path[0] === 'kind') continue;
      const range = m.anchor === 'key' ? map.key(m.path) : m.anchor === 'missing' ? map.missing(m.path) : map.value(m.path);
      add(range, 'error', m.message, m.path);
    }
  }
}

/** The problem for a file over maxSpecFileBytes; readers that check the size before reading use it too. */
export function tooLargeMessage(bytes: number): string {
  return `file is ${mib(bytes)}, larger than the ${mib(maxSpecFileBytes)} limit for a spec file; generate large fixtures with sandbox.setup commands instead of inlining them`;
}

function finish(result: ParsedSpec, kind: SpecKind | undefined): ParsedSpec {
  if (kind && !result.kind) result.kind = kind;
  result.problems.sort(compareProblems);
  if (result.problems.some((p) => p.severity === 'error')) delete result.spec;
  return result;
}

type Add = (range: TextRange, severity: Problem['severity'], message: string, path?: SpecPath) => void;

/**
 * Faults the yaml package accepts but a spec cannot hold: keys that are lists or mappings, and aliases to anchors
 * that do not exist. Returns false when any was found.
 */
function structureProblems(doc: Document, map: SpecSourceMap, add: Add): boolean {
  let ok = true;
  visit(doc, {
    Pair(_, pair) {
      if (pair.key !== null && !isScalar(pair.key)) {
        add(map.nodeRange(pair.key) ?? startOfFile, 'error', 'keys must be plain names, not lists or mappings');
        ok = false;
      }
    },
    Alias(_, alias) {
      if (alias.resolve(doc) === undefined) {
        add(map.nodeRange(alias) ?? startOfFile, 'error', `alias "*${alias.source}" refers to no anchor; define "&${alias.source}" on an earlier value`);
        ok = false;
      }
    },
  });
  return ok;
}

/** Decides the kind: the caller's, else the file name's, else the `kind:` field; reports any disagreement on the field. */
function resolveKind(doc: Document, file: string, explicit: SpecKind | undefined, map: SpecSourceMap, add: Add): SpecKind | undefined {
  const fromName = kindFromFileName(file);
  const kindNode = isMap(doc.contents) ? doc.contents.get('kind', true) : undefined;
  const field = isScalar(kindNode) ? kindNode.value : undefined;
  const fieldRange = map.value(['kind']);
  const expected = explicit ?? fromName;

  if (expected) {
    if (typeof field === 'string' && field !== expected && isSpecKind(field)) {
      const because = explicit ? `${expected === 'Environment' || expected === 'Agent' ? 'an' : 'a'} ${expected} spec is expected here` : `this file is named *${specKindInfo[expected].suffix}`;
      add(fieldRange, 'error', `${because} but says kind: ${field}; set kind: ${expected}${explicit ? '' : ` or rename the file to *${specKindInfo[field].suffix}`}`, ['kind']);
    }
    return expected;
  }
  if (isSpecKind(field)) {
    add(fieldRange, 'warning', `name this file *${specKindInfo[field].suffix} so the editor and \`coevolve validate <folder>\` find it`, ['kind']);
    return field;
  }
  if (field !== undefined && field !== null) {
    const guess = closest(String(field), [...specKinds]);
    add(fieldRange, 'error', `unknown kind ${JSON.stringify(field)}; expected one of ${specKinds.join(', ')} (did you mean ${guess}?)`, ['kind']);
    return undefined;
  }
  const suffixes = specKinds.map((k) => `*${specKindInfo[k].suffix}`).join(', ');
  add(map.missing(['kind']), 'error', `cannot tell what kind of spec this is: name the file ${suffixes}, or add a "kind:" field (${specKinds.join(', ')})`, ['kind']);
  return undefined;
}

/** The first character that cannot be in a YAML text file: a C0 control other than tab/newline/CR, DEL, or U+FFFD from undecodable bytes. */
function firstNonText(text: string): { char: string; range: TextRange } | undefined {
  // eslint-disable-next-line no-control-regex
  const m = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\uFFFD]/.exec(text);
  if (!m) return undefined;
  const before = text.slice(0, m.index);
  const line = before.split('\n').length;
  const column = m.index - before.lastIndexOf('\n');
  return { char: m[0], range: { line, column, endLine: line, endColumn: column + 1 } };
}

function utf8Length(text: string): number {
  // Cheap bounds first: a UTF-16 code unit is 1 to 3 UTF-8 bytes.
  if (text.length > maxSpecFileBytes) return Math.max(text.length, new TextEncoder().encode(text).length);
  if (text.length * 3 <= maxSpecFileBytes) return text.length;
  return new TextEncoder().encode(text).length;
}

function mib(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, '')} MiB`;
}
