// Where the cursor is in a spec file, read from indentation rather than from a parse tree: while someone types, the
// YAML is usually broken (a half-typed key, a key with no colon yet), and a line-based reading still knows which
// mapping the cursor is in. Block scalars (`script: |`) are tracked so nothing is offered inside a shell script.
import type { SpecPath } from '../../core/spec/problems.js';

/** What a cursor position means for completion and hover. */
export type YamlCursor =
  | {
      /** Typing a key of the mapping at `path` (an empty line, or a word with no colon yet). */
      kind: 'key';
      path: SpecPath;
      /** Keys already present in that mapping (above and below), not offered again. */
      existingKeys: string[];
      /** The part of the key typed so far, and the 0-based columns it spans (replaced by a completion). */
      prefix: string;
      start: number;
      end: number;
      /** Column where a key of this mapping starts; a skeleton inserted here indents relative to it. */
      indent: number;
      /** Inside a flow mapping (`{a: 1, b`): a key is inserted as `key: `, never as a multi-line skeleton. */
      flow?: boolean;
    }
  | {
      /** Typing the value of the key at `path` (after `key: `). */
      kind: 'value';
      path: SpecPath;
      prefix: string;
      start: number;
      end: number;
      indent: number;
    }
  | { kind: 'none'; reason: 'block-scalar' | 'comment' | 'unknown' };

interface Line {
  text: string;
  /** Columns of the `- ` sequence indicators at the start of the line, outermost first. */
  dashes: number[];
  /** Column of the content after indentation and dashes; -1 for blank and comment-only lines. */
  content: number;
  /** The key when the content is `key:` or `key: value`. */
  key?: string;
  /** The value text after `key:`, without a trailing comment, trimmed. */
  value?: string;
  /** True when the line is part of a block scalar opened above it. */
  inBlock: boolean;
}

const keyPattern = /^(?:"((?:[^"\\]|\\.)*)"|'((?:[^']|'')*)'|([^\s#'"{[\-?:,][^#:]*?|-[^\s#:][^#:]*?))\s*:(?=\s|$)/;

function splitLine(text: string): Omit<Line, 'inBlock'> {
  let i = 0;
  while (i < text.length && text[i] === ' ') i++;
  const dashes: number[] = [];
  while (text[i] === '-' && (i + 1 === text.length || text[i + 1] === ' ')) {
    dashes.push(i);
    i++;
    while (i < text.length && text[i] === ' ') i++;
  }
  if (i >= text.length || text[i] === '#') return { text, dashes, content: dashes.length > 0 ? i : -1 };
  const rest = text.slice(i);
  const m = keyPattern.exec(rest);
  if (!m) return { text, dashes, content: i };
  const key = m[1] ?? (m[2] !== undefined ? m[2].replace(/''/g, "'") : m[3]!.trim());
  const value = stripComment(rest.slice(m[0].length)).trim();
  return { text, dashes, content: i, key, value };
}

/** Drops a `# comment` that follows whitespace, outside quotes. */
function stripComment(s: string): string {
  let quote: string | undefined;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === '#' && (i === 0 || /\s/.test(s[i - 1]!))) {
      return s.slice(0, i);
    }
  }
  return s;
}

/** `|`, `>-`, `|2+` ... : a value that opens a block scalar on the following lines. */
function opensBlock(value: string | undefined): boolean {
  return value !== undefined && /^[|>][-+0-9]*$/.test(value);
}

let lastLines: { text: string; lines: Line[] } | undefined;

/** Splits the text into lines and marks those inside block scalars (the last text's lines are remembered). */
export function readLines(text: string): Line[] {
  if (lastLines?.text === text) return lastLines.lines;
  const lines = splitLines(text);
  lastLines = { text, lines };
  return lines;
}

function splitLines(text: string): Line[] {
  const raw = text.split(/\r?\n/);
  const lines: Line[] = [];
  // The indentation a block scalar's content must exceed, while one is open.
  let blockParent = -1;
  for (const t of raw) {
    if (blockParent >= 0) {
      const indent = t.length - t.trimStart().length;
      if (t.trim() === '' || indent > blockParent) {
        lines.push({ text: t, dashes: [], content: -1, inBlock: true });
        continue;
      }
      blockParent = -1;
    }
    const line: Line = { ...splitLine(t), inBlock: false };
    lines.push(line);
    if (opensBlock(line.value)) blockParent = line.content;
    else if (line.key === undefined && line.dashes.length > 0 && opensBlock(t.slice(line.content).trim())) blockParent = line.dashes[line.dashes.length - 1]!;
  }
  return lines;
}

/**
 * The cursor's meaning at a 0-based line and character. `path` uses list indexes, so it can be fed to
 * `schemaAt`/`valueAt` with the parsed document.
 */
export function cursorAt(text: string, lineNo: number, character: number): YamlCursor {
  const lines = readLines(text);
  const here = lines[lineNo];
  if (!here) return { kind: 'none', reason: 'unknown' };
  const before = here.text.slice(0, character);
  if (here.inBlock) {
    // A blank line inside a block scalar belongs to it only if the cursor is indented past the block's key.
    const opener = findBlockOpener(lines, lineNo);
    if (before.trim() !== '' || !opener || character > opener) return { kind: 'none', reason: 'block-scalar' };
  }
  if (/(^|\s)#/.test(stripQuoted(before))) return { kind: 'none', reason: 'comment' };

  const parsedBefore = splitLine(before);
  const word = /[^\s:]*$/.exec(before)![0];
  const wordEnd = character + (/^[^\s:]*/.exec(here.text.slice(character))![0].length);

  if (parsedBefore.key !== undefined) {
    // After "key:" on this line: a value, or inside a flow collection ("{a: 1, b|" / "[x, y|") opened after it.
    const column = parsedBefore.content;
    const parent = containerPath(lines, lineNo, column, parsedBefore.dashes);
    if (!parent) return { kind: 'none', reason: 'unknown' };
    const valueText = before.slice(before.indexOf(':', column) + 1);
    if (/^\s*[{[]/.test(valueText)) return flowCursor(valueText, [...parent.path, parsedBefore.key], character, here.text.slice(character), column);
    const prefix = valueText.trimStart().replace(/^["']/, '');
    return { kind: 'value', path: [...parent.path, parsedBefore.key], prefix, start: character - prefix.length, end: wordEnd, indent: column };
  }

  // A key position: the column is where the word starts (after indentation and dashes).
  const column = parsedBefore.content >= 0 ? parsedBefore.content : character;
  const parent = containerPath(lines, lineNo, column, parsedBefore.dashes);
  if (!parent) return { kind: 'none', reason: 'unknown' };
  const rowStartsItem = parent.itemDash !== undefined && parsedBefore.dashes.includes(parent.itemDash);
  const existing = siblingKeys(lines, lineNo, column, parent.itemDash, rowStartsItem).filter((k) => k !== word);
  return { kind: 'key', path: parent.path, existingKeys: existing, prefix: word, start: character - word.length, end: wordEnd, indent: column };
}

/**
 * The path to the key a position is on (the key itself, or the key whose value it is), for hover. Undefined on
 * blank lines, comments and inside block scalars.
 */
export function keyPathAt(text: string, lineNo: number, character: number): { path: SpecPath; keyStart: number; keyEnd: number } | undefined {
  const lines = readLines(text);
  const here = lines[lineNo];
  if (!here || here.inBlock || here.key === undefined) return undefined;
  const parent = containerPath(lines, lineNo, here.content, here.dashes);
  if (!parent) return undefined;
  const keyEnd = here.text.indexOf(':', here.content);
  if (character < here.content && !(here.dashes.length > 0 && character >= here.dashes[0]!)) return undefined;
  return { path: [...parent.path, here.key], keyStart: here.content, keyEnd };
}

/**
 * The path of the mapping whose keys start at `column` on line `row`. `dashes` are the sequence indicators before that
 * column on the line itself (`- key`), which make the mapping a list item. `itemDash` is set when the innermost mapping
 * is a list item (its siblings stop at the next item).
 */
function containerPath(lines: Line[], row: number, column: number, dashes: number[]): { path: SpecPath; itemDash?: number } | undefined {
  const path: SpecPath = [];
  let itemDash: number | undefined;
  let at = { row, col: column, dashes };
  for (let guard = 0; guard < 500; guard++) {
    if (at.dashes.length > 0) {
      // The mapping is an item of the list whose indicators sit at this dash column.
      const dash = at.dashes[at.dashes.length - 1]!;
      if (path.length === 0 && itemDash === undefined) itemDash = dash;
      path.unshift(countEarlierItems(lines, at.row, dash));
      if (at.dashes.length > 1) {
        at = { row: at.row, col: dash, dashes: at.dashes.slice(0, -1) };
        continue;
      }
      const ownerRow = sequenceOwner(lines, at.row, dash);
      const owner = ownerRow === undefined ? undefined : lines[ownerRow]!;
      if (ownerRow === undefined || owner?.key === undefined || !opensCollection(owner.value)) return undefined;
      path.unshift(owner.key);
      at = { row: ownerRow, col: owner.content, dashes: owner.dashes };
      continue;
    }
    const parent = mappingParent(lines, at.row, at.col);
    if (parent === 'root') return { path, ...(itemDash !== undefined ? { itemDash } : {}) };
    const line = lines[parent.row]!;
    if (parent.startsItem || isBareDash(line)) {
      // The first line of the list item this mapping is (`- key: v`), or a lone `-` with the item below it.
      at = { row: parent.row, col: line.content, dashes: line.dashes };
      continue;
    }
    if (line.key === undefined || !opensCollection(line.value)) return undefined;
    path.unshift(line.key);
    at = { row: parent.row, col: line.content, dashes: line.dashes };
  }
  return undefined;
}

/** `key:` with nothing after it (or only an anchor) opens a nested mapping or list. */
function opensCollection(value: string | undefined): boolean {
  return value === undefined || value === '' || /^&\S+$/.test(value);
}

function isBareDash(l: Line): boolean {
  return l.dashes.length > 0 && l.key === undefined && l.text.slice(l.content).trim() === '';
}

/**
 * Walks up from `row` to the line that decides what the mapping at `col` belongs to: a shallower line (its parent),
 * or a line at the same column that starts a list item (the mapping is that item).
 */
function mappingParent(lines: Line[], row: number, col: number): { row: number; startsItem: boolean } | 'root' {
  for (let r = row - 1; r >= 0; r--) {
    const l = lines[r]!;
    if (l.inBlock || l.content < 0) continue;
    if (l.content > col) continue;
    if (l.content === col) {
      if (l.dashes.length > 0) return { row: r, startsItem: true };
      continue;
    }
    return { row: r, startsItem: false };
  }
  return 'root';
}

/** The line owning the list whose items start with a dash at `dash`: the first shallower line above its items. */
function sequenceOwner(lines: Line[], row: number, dash: number): number | undefined {
  for (let r = row - 1; r >= 0; r--) {
    const l = lines[r]!;
    if (l.inBlock || l.content < 0) continue;
    if (l.dashes.includes(dash)) continue;
    if (startColumn(l) > dash) continue;
    return r;
  }
  return undefined;
}

function startColumn(l: Line): number {
  return l.dashes.length > 0 ? l.dashes[0]! : l.content;
}

/** How many list items at `dash` come before the one on `row` in the same list. */
function countEarlierItems(lines: Line[], row: number, dash: number): number {
  let n = 0;
  for (let r = row - 1; r >= 0; r--) {
    const l = lines[r]!;
    if (l.inBlock || l.content < 0) continue;
    if (l.dashes.includes(dash)) n++;
    else if (startColumn(l) <= dash) break;
  }
  return n;
}

/** Keys at `column` in the same mapping as `row`, above and below it. */
function siblingKeys(lines: Line[], row: number, column: number, itemDash: number | undefined, rowStartsItem: boolean): string[] {
  const keys: string[] = [];
  const startsThisItem = (l: Line): boolean => itemDash !== undefined && l.dashes.includes(itemDash);
  if (!rowStartsItem) {
    for (let r = row - 1; r >= 0; r--) {
      const l = lines[r]!;
      if (l.inBlock || l.content < 0 || l.content > column) continue;
      if (l.content < column) break;
      if (l.key !== undefined) keys.push(l.key);
      if (startsThisItem(l)) break;
    }
  }
  for (let r = row + 1; r < lines.length; r++) {
    const l = lines[r]!;
    if (l.inBlock || l.content < 0 || l.content > column) continue;
    if (l.content < column || startsThisItem(l)) break;
    if (l.key !== undefined) keys.push(l.key);
  }
  return keys;
}

function findBlockOpener(lines: Line[], row: number): number | undefined {
  for (let r = row - 1; r >= 0; r--) {
    const l = lines[r]!;
    if (l.inBlock) continue;
    if (opensBlock(l.value)) return l.content;
    return undefined;
  }
  return undefined;
}

function stripQuoted(s: string): string {
  return s.replace(/"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'/g, '""');
}

interface FlowLevel {
  type: 'map' | 'seq';
  path: SpecPath;
  /** Map: the key whose value is being typed, once its colon is seen. Seq: the index of the item being typed. */
  key?: string;
  index: number;
  existing: string[];
  /** Column (in the flow text) where the current key or item began. */
  from: number;
}

/**
 * The cursor inside a flow collection on one line (`limits: { memoryMb: 128, pi` or `builtinFamilies: [log-triage, c`):
 * the innermost open `{` or `[` decides whether a key or a value is being typed, and for which path. Quoted text is
 * skipped; a collection closed before the cursor counts as a finished value.
 */
export function flowCursor(flow: string, base: SpecPath, character: number, after: string, indent: number): YamlCursor {
  // A completion replaces the word under the cursor, never the flow punctuation after it.
  const wordEnd = character + (/^[^\s:,{}[\]]*/.exec(after)?.[0].length ?? 0);
  const stack: FlowLevel[] = [];
  let quote: string | undefined;
  const childPath = (): SpecPath => {
    const top = stack[stack.length - 1];
    if (!top) return base;
    return top.type === 'map' ? [...top.path, top.key ?? ''] : [...top.path, top.index];
  };
  for (let i = 0; i < flow.length; i++) {
    const c = flow[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      continue;
    }
    const top = stack[stack.length - 1];
    if (c === '"' || c === "'") quote = c;
    else if (c === '{' || c === '[') stack.push({ type: c === '{' ? 'map' : 'seq', path: childPath(), index: 0, existing: [], from: i + 1 });
    else if (c === '}' || c === ']') {
      stack.pop();
      if (stack.length === 0) return { kind: 'none', reason: 'unknown' }; // the collection closed before the cursor
    } else if (c === ',' && top) {
      if (top.type === 'map') delete top.key;
      else top.index++;
      top.from = i + 1;
    } else if (c === ':' && top?.type === 'map' && top.key === undefined && (i + 1 === flow.length || /\s/.test(flow[i + 1]!))) {
      top.key = flow.slice(top.from, i).trim().replace(/^["']|["']$/g, '');
      top.existing.push(top.key);
      top.from = i + 1;
    }
  }
  const top = stack[stack.length - 1];
  if (!top || quote) return { kind: 'none', reason: 'unknown' };
  const prefix = flow.slice(top.from).trimStart();
  if (top.type === 'map' && top.key === undefined) {
    return { kind: 'key', path: top.path, existingKeys: top.existing.filter((k) => k !== prefix), prefix, start: character - prefix.length, end: wordEnd, indent, flow: true };
  }
  return { kind: 'value', path: childPath(), prefix: prefix.replace(/^["']/, ''), start: character - prefix.replace(/^["']/, '').length, end: wordEnd, indent };
}
