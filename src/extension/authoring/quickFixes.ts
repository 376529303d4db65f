// Quick fixes where the fix is clear: an unknown key becomes the closest valid key; a missing required field is
// inserted as a skeleton (with the fields it requires in turn) at the end of the mapping that lacks it.
// Plain data over the core's problems; the vscode adapter turns it into CodeActions.
import { distance } from 'fastest-levenshtein';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node, type Pair } from 'yaml';
import type { Problem, SpecPath } from '../../core/spec/problems.js';
import { objectKeys, schemaAt, valueAt } from '../../core/spec/schemaAt.js';
import { keyText } from '../../core/spec/sourceMap.js';
import { fieldSkeleton } from './skeleton.js';
import { looseInput, rootSchema, specKindOf } from './specSchema.js';

/** A 0-based position, as editors count. */
export interface Position0 {
  line: number;
  character: number;
}

export interface TextEdit0 {
  start: Position0;
  end: Position0;
  newText: string;
}

export interface SpecFix {
  title: string;
  edits: TextEdit0[];
  /** The one fix applied by "Fix all" / Ctrl+. Enter. */
  preferred: boolean;
}

const unknownKey = /^unknown key "((?:[^"\\]|\\.)*)"/;
const didYouMean = /did you mean "((?:[^"\\]|\\.)*)"\?/;
const missingField = /^missing required field "((?:[^"\\]|\\.)*)"/;

/** The fixes for one problem of a spec file; empty when none is clear. */
export function fixesFor(problem: Problem, file: string, text: string): SpecFix[] {
  const unknown = unknownKey.exec(problem.message);
  if (unknown) return renameKeyFixes(problem, file, text, unknown[1]!);
  const missing = missingField.exec(problem.message);
  if (missing) {
    const fix = insertFieldFix(problem.path, file, text);
    return fix ? [fix] : [];
  }
  return [];
}

function renameKeyFixes(problem: Problem, file: string, text: string, key: string): SpecFix[] {
  const range = { start: { line: problem.line - 1, character: problem.column - 1 }, end: { line: problem.endLine - 1, character: problem.endColumn - 1 } };
  const suggested = didYouMean.exec(problem.message)?.[1];
  const candidates: string[] = suggested ? [suggested] : [];
  // Two more of the closest valid keys not yet used, for when the suggestion is not what was meant.
  const kind = specKindOf(file, text);
  if (kind && problem.path.length > 0) {
    const input = looseInput(text);
    const parentPath = problem.path.slice(0, -1);
    const parentValue = valueAt(input, parentPath);
    const used = new Set(parentValue && typeof parentValue === 'object' ? Object.keys(parentValue) : []);
    const allowed = objectKeys(schemaAt(rootSchema(kind), parentPath, input), parentValue).filter((k) => !used.has(k) && !candidates.includes(k));
    allowed.sort((a, b) => distance(key.toLowerCase(), a.toLowerCase()) - distance(key.toLowerCase(), b.toLowerCase()));
    candidates.push(...allowed.slice(0, suggested ? 2 : 3));
  }
  return candidates.map((c, i) => ({
    title: `Change "${key}" to "${c}"`,
    edits: [{ ...range, newText: c }],
    preferred: i === 0 && suggested !== undefined,
  }));
}

/** Inserts `name:` and what it requires at the end of the mapping at `path`'s parent. */
export function insertFieldFix(path: SpecPath, file: string, text: string): SpecFix | undefined {
  const kind = specKindOf(file, text);
  if (!kind || path.length === 0) return undefined;
  const name = String(path[path.length - 1]);
  const input = looseInput(text);
  const schema = schemaAt(rootSchema(kind), path, input);
  if (!schema) return undefined;
  const spot = insertionSpot(text, path.slice(0, -1));
  if (!spot) return undefined;
  const lines = fieldSkeleton(name, schema, spot.indent);
  const lineCount = text.split('\n').length;
  const endsWithNewline = text.endsWith('\n');
  let edit: TextEdit0;
  if (spot.line < lineCount - (endsWithNewline ? 1 : 0)) {
    edit = { start: { line: spot.line, character: 0 }, end: { line: spot.line, character: 0 }, newText: `${lines.join('\n')}\n` };
  } else {
    // Past the last line: append, with a newline first when the file does not end with one.
    const lastLine = text.split('\n')[lineCount - 1] ?? '';
    const at = endsWithNewline ? { line: lineCount - 1, character: 0 } : { line: lineCount - 1, character: lastLine.length };
    edit = { start: at, end: at, newText: `${endsWithNewline ? '' : '\n'}${lines.join('\n')}\n` };
  }
  return { title: `Add the missing field "${name}"`, edits: [edit], preferred: true };
}

/** Where a new key of the mapping at `path` goes: the line after the mapping's last entry, at its keys' column. */
export function insertionSpot(text: string, path: SpecPath): { line: number; indent: number } | undefined {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: false });
  const pos = (offset: number): { line: number; col: number } => {
    const p = lineCounter.linePos(offset);
    return { line: p.line - 1, col: p.col - 1 };
  };
  let node: unknown = doc.contents;
  let owner: Pair | undefined;
  let ownerIndent = -2;
  for (const seg of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => keyText(p.key) === String(seg));
      if (!pair) return undefined;
      owner = pair;
      ownerIndent = isScalar(pair.key) && pair.key.range ? pos(pair.key.range[0]).col : ownerIndent + 2;
      node = pair.value;
    } else if (isSeq(node) && typeof seg === 'number') {
      node = node.items[seg];
      owner = undefined;
    } else {
      return undefined;
    }
  }
  if (isMap(node) && node.items.length > 0) {
    const first = node.items[0]!;
    const last = node.items[node.items.length - 1]!;
    const firstKey = first.key as Node | null;
    const indent = firstKey?.range ? pos(firstKey.range[0]).col : 0;
    const lastNode = (last.value ?? last.key) as Node | null;
    const end = lastNode?.range ? lastNode.range[1] : 0;
    // The entry's last character is just before its end offset (which may itself be past a newline).
    const endLine = pos(Math.max(0, end - 1)).line + 1;
    return { line: endLine, indent };
  }
  if (path.length === 0) return { line: text.split('\n').length, indent: 0 };
  // An empty value (`verifier:`): the new field goes on the next line, one level in.
  if (owner && isScalar(owner.key) && owner.key.range) {
    return { line: pos(owner.key.range[0]).line + 1, indent: ownerIndent + 2 };
  }
  return undefined;
}
